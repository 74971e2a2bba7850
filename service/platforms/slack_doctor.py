"""doctor's checks of Slack: each asks the real service the cheapest question that
proves the piece works, and posts nothing. Findings never carry a secret."""

from __future__ import annotations

from collections.abc import Callable

from service import operator_text as say
from service.errors import ServiceError
from service.ops.doctor import Finding, ok, problem
from service.slack.probe import Access

_ACCESS = {
    Access.MEMBER: (True, say.SLACK_MEMBER),
    Access.JOINABLE: (True, say.SLACK_JOINABLE),
    Access.NOT_FOUND: (False, say.SLACK_CHANNEL_NOT_FOUND),
    Access.MISSING_SCOPE: (False, say.SLACK_MISSING_SCOPE),
}


def check_slack(
    identity: Callable[[], str],
    access: Callable[[str], Access],
    channels: list[str],
    *,
    signing_secret: bool,
    socket: Callable[[], str] | None = None,
) -> list[Finding]:
    """auth.test (`identity`); how commands arrive: Socket Mode (`socket` asks
    apps.connections.open with the app token) or signed requests; every channel (`access`)."""
    found = [ok("slack", say.SLACK_TOKEN_OK.format(identity=identity()))]
    if socket is not None:
        try:
            socket()
            found.append(ok("slack", say.SLACK_SOCKET_OK))
        except ServiceError as exc:
            found.append(problem("slack", exc.message))
    elif not signing_secret:
        found.append(problem("slack", say.SLACK_NO_RECEIVER))
    for channel in channels:
        fine, what = _ACCESS[access(channel)]
        found.append(Finding("slack", fine, say.SLACK_CHANNEL.format(channel=channel, what=what)))
    return found
