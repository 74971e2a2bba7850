"""What `verl-week doctor` asks Slack: whose token this is (auth.test), and whether the bot can
post in a channel, found with the scopes the app already has (conversations.history, limit 1):
no extra scope just for a check."""

from __future__ import annotations

from enum import StrEnum

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from service.errors import AuthRefusedError, UnreachableError

# auth.test errors that mean the token itself is wrong
TOKEN_ERRORS = frozenset({"invalid_auth", "not_authed", "account_inactive", "token_revoked"})


class Access(StrEnum):
    MEMBER = "member"  # the bot is in the channel
    JOINABLE = "joinable"  # a public channel the bot is not in: it joins on the first post
    NOT_FOUND = "not_found"  # no such channel, or a private one without the bot
    MISSING_SCOPE = "missing_scope"  # the app lacks channels:history / groups:history


def bot_identity(client: WebClient) -> str:
    """`@bot in team` for the token, or AuthRefusedError / UnreachableError."""
    try:
        data = client.auth_test()
    except SlackApiError as exc:
        code = str(exc.response.get("error") or "unknown_error")
        if code in TOKEN_ERRORS:
            raise AuthRefusedError(f"Slack refused SLACK_BOT_TOKEN ({code})") from None
        raise UnreachableError(f"Slack auth.test failed: {code}") from None
    except (SlackClientError, OSError) as exc:
        raise UnreachableError(f"Slack could not be reached ({type(exc).__name__})") from None
    return f"@{data.get('user') or '?'} in {data.get('team') or '?'}"


def channel_access(client: WebClient, channel: str) -> Access:
    """Whether the bot can post in `channel` (UnreachableError when Slack can't tell)."""
    try:
        client.conversations_history(channel=channel, limit=1)
    except SlackApiError as exc:
        code = str(exc.response.get("error") or "unknown_error")
        if code == "not_in_channel":
            return Access.JOINABLE
        if code in ("channel_not_found", "is_archived"):
            return Access.NOT_FOUND
        if code == "missing_scope":
            return Access.MISSING_SCOPE
        raise UnreachableError(f"Slack conversations.history failed: {code}") from None
    except (SlackClientError, OSError) as exc:
        raise UnreachableError(f"Slack could not be reached ({type(exc).__name__})") from None
    return Access.MEMBER


# apps.connections.open errors that mean SLACK_APP_TOKEN itself is wrong (a bot token given as
# the app token answers not_allowed_token_type; an app token without connections:write,
# missing_scope)
APP_TOKEN_ERRORS = TOKEN_ERRORS | {"not_allowed_token_type", "missing_scope", "invalid_token"}
APP_LEVEL_HOWTO = (
    "create an app-level token with connections:write under Basic Information → "
    "App-Level Tokens (xapp-…)"
)


def socket_url(client: WebClient, app_token: str) -> str:
    """apps.connections.open with the app token: the websocket URL Socket Mode connects to.

    AuthRefusedError when Slack refuses the token, UnreachableError when it can't be asked."""
    try:
        data = client.apps_connections_open(app_token=app_token)
    except SlackApiError as exc:
        code = str(exc.response.get("error") or "unknown_error")
        if code in APP_TOKEN_ERRORS:
            raise AuthRefusedError(
                f"Slack refused SLACK_APP_TOKEN ({code}): {APP_LEVEL_HOWTO}"
            ) from None
        raise UnreachableError(f"Slack apps.connections.open failed: {code}") from None
    except (SlackClientError, OSError) as exc:
        raise UnreachableError(f"Slack could not be reached ({type(exc).__name__})") from None
    return str(data.get("url") or "")
