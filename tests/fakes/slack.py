"""FakeSlack: the Slack Web API and response_url on 127.0.0.1, stateful and strict.

auth.test, chat.postMessage / chat.update / chat.postEphemeral (messages kept per channel, so
an update is checked against what was posted), conversations.join and conversations.history
(with message metadata, for reconciling), and response_url receivers. Errors answer as Slack
does (HTTP 200 with ok:false; 429 with Retry-After). Every payload with blocks is checked with
limits.payload_violations and the findings kept in `violations`.
"""

from __future__ import annotations

import itertools
import json
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode

from service.render.limits import payload_violations
from tests.fakes._server import FakeAPI, Recorded, Reply, serve

BOT_TOKEN = "xoxb-test-token"
BOT_USER = "UBOT"
TEAM = "T0001"


@dataclass
class Channel:
    id: str
    member: bool = True
    public: bool = True
    messages: list[dict[str, Any]] = field(default_factory=list)  # oldest first


@dataclass
class FakeSlack:
    api: FakeAPI = field(default_factory=FakeAPI)
    channels: dict[str, Channel] = field(default_factory=dict)
    responses: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    ephemerals: list[dict[str, Any]] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    method_errors: dict[str, list[str]] = field(default_factory=dict)
    _ts: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _hooks: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    # --- scenario helpers ------------------------------------------------------------------

    @property
    def url(self) -> str:
        return self.api.url

    @property
    def api_url(self) -> str:
        return f"{self.api.url}/api/"

    def add_channel(self, channel_id: str, *, member: bool = True, public: bool = True) -> Channel:
        self.channels[channel_id] = Channel(channel_id, member=member, public=public)
        return self.channels[channel_id]

    def rate_limit(self, retry_after: int = 1, times: int = 1) -> None:
        """The next `times` calls answer 429 with Retry-After."""
        self.api.fail_next(
            429,
            {"Retry-After": str(retry_after)},
            {"ok": False, "error": "ratelimited"},
            times=times,
        )

    def fail_method(self, method: str, error: str, times: int = 1) -> None:
        """The next `times` calls of `method` answer ok:false with `error`."""
        self.method_errors.setdefault(method, []).extend([error] * times)

    def response_url(self) -> str:
        """A fresh response_url, as Slack puts one in each command / action payload: its last
        segment is a secret (hooks.slack.com/commands/TEAM/ID/SECRET)."""
        hook = f"/commands/{TEAM}/{1_000_000_000_000 + next(self._hooks)}/{secrets.token_hex(12)}"
        self.responses[hook] = []
        return self.api.url + hook

    def responses_to(self, url: str) -> list[dict[str, Any]]:
        return self.responses[url.removeprefix(self.api.url)]

    def calls(self, method: str) -> list[Recorded]:
        return self.api.calls("POST", f"/api/{method}") + self.api.calls("GET", f"/api/{method}")

    def messages(self, channel_id: str) -> list[dict[str, Any]]:
        return self.channels[channel_id].messages

    # --- routes ----------------------------------------------------------------------------

    def install(self) -> None:
        routes = {
            "auth.test": self._auth_test,
            "chat.postMessage": self._post,
            "chat.update": self._update,
            "chat.postEphemeral": self._ephemeral,
            "conversations.join": self._join,
            "conversations.history": self._history,
        }
        for method, handler in routes.items():
            route = self._wrap(method, handler)
            self.api.route("POST", f"/api/{method}", route)
            self.api.route("GET", f"/api/{method}", route)
        self.api.route_prefix("POST", "/commands/", self._response)

    def _wrap(self, method: str, handler: Any) -> Any:
        def route(rec: Recorded) -> Reply:
            if rec.header("authorization") != f"Bearer {BOT_TOKEN}":
                return 200, {}, {"ok": False, "error": "invalid_auth"}
            queued = self.method_errors.get(method)
            if queued:
                return 200, {}, {"ok": False, "error": queued.pop(0)}
            result: Reply = handler(self._args(rec))
            return result

        return route

    @staticmethod
    def _args(rec: Recorded) -> dict[str, Any]:
        ctype = rec.header("content-type") or ""
        if "json" in ctype:
            return dict(rec.json() or {})
        form = {k: v[0] for k, v in parse_qs(rec.body.decode()).items()}
        form.update({k: v[0] for k, v in rec.query.items()})
        return form

    def _check(self, args: dict[str, Any]) -> None:
        if "blocks" in args:
            self.violations += payload_violations(args)

    def _channel(self, args: dict[str, Any]) -> Channel | Reply:
        channel = self.channels.get(str(args.get("channel", "")))
        if channel is None:
            return 200, {}, {"ok": False, "error": "channel_not_found"}
        return channel

    def _auth_test(self, _args: dict[str, Any]) -> Reply:
        return (
            200,
            {},
            {
                "ok": True,
                "team_id": TEAM,
                "user_id": BOT_USER,
                "bot_id": "BBOT",
                "url": "https://example.slack.com/",
                "team": "example",
                "user": "bot",
            },
        )

    def _post(self, args: dict[str, Any]) -> Reply:
        found = self._channel(args)
        if not isinstance(found, Channel):
            return found
        if not found.member:
            return 200, {}, {"ok": False, "error": "not_in_channel"}
        if not args.get("text") and not args.get("blocks"):
            return 200, {}, {"ok": False, "error": "no_text"}
        self._check(args)
        ts = f"1700000000.{next(self._ts):06d}"
        message = {
            "type": "message",
            "user": BOT_USER,
            "ts": ts,
            "text": args.get("text", ""),
            "blocks": args.get("blocks", []),
            "metadata": args.get("metadata"),
            "edits": 0,
        }
        found.messages.append(message)
        return 200, {}, {"ok": True, "channel": found.id, "ts": ts, "message": message}

    def _update(self, args: dict[str, Any]) -> Reply:
        found = self._channel(args)
        if not isinstance(found, Channel):
            return found
        message = next((m for m in found.messages if m["ts"] == args.get("ts")), None)
        if message is None:
            return 200, {}, {"ok": False, "error": "message_not_found"}
        self._check(args)
        message.update(
            text=args.get("text", ""), blocks=args.get("blocks", []), edits=message["edits"] + 1
        )
        if args.get("metadata"):
            message["metadata"] = args["metadata"]
        return (
            200,
            {},
            {"ok": True, "channel": found.id, "ts": message["ts"], "text": message["text"]},
        )

    def _ephemeral(self, args: dict[str, Any]) -> Reply:
        self._check(args)
        self.ephemerals.append(args)
        return 200, {}, {"ok": True, "message_ts": "1700000000.999999"}

    def _join(self, args: dict[str, Any]) -> Reply:
        found = self._channel(args)
        if not isinstance(found, Channel):
            return found
        if not found.public:
            return 200, {}, {"ok": False, "error": "method_not_supported_for_channel_type"}
        found.member = True
        return 200, {}, {"ok": True, "channel": {"id": found.id}}

    def _history(self, args: dict[str, Any]) -> Reply:
        found = self._channel(args)
        if not isinstance(found, Channel):
            return found
        if not found.member:  # a private channel is invisible to a bot that is not in it
            error = "not_in_channel" if found.public else "channel_not_found"
            return 200, {}, {"ok": False, "error": error}
        limit = int(args.get("limit") or 100)
        with_metadata = str(args.get("include_all_metadata", "")).lower() in ("1", "true")
        newest_first = list(reversed(found.messages))[:limit]
        messages = [
            {k: v for k, v in m.items() if k != "edits" and (with_metadata or k != "metadata")}
            for m in newest_first
        ]
        return 200, {}, {"ok": True, "messages": messages, "has_more": False}

    def _response(self, rec: Recorded) -> Reply:
        payload = rec.json()
        if isinstance(payload, dict):
            self._check(payload)
        self.responses.setdefault(rec.path, []).append(payload)
        return 200, {}, "ok"


@contextmanager
def running_fake_slack() -> Iterator[FakeSlack]:
    """A FakeSlack served on 127.0.0.1 (port 0) with channel C1 where the bot is a member."""
    fake = FakeSlack()
    fake.install()
    fake.add_channel("C1")
    with serve(fake.api):
        yield fake


def form_body(fields: dict[str, str]) -> bytes:
    return urlencode(fields).encode()


def action_body(payload: dict[str, Any]) -> bytes:
    """An interactivity request body: `payload=<json>` form-encoded, as Slack sends it."""
    return form_body({"payload": json.dumps(payload)})
