"""doctor's checks of Feishu (the app bot, its events, the custom-bot webhook): each asks the
real service the cheapest question that proves the piece works, and posts nothing. Findings
never carry a secret."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests

from service import operator_text as say
from service.errors import ServiceError
from service.feishu.api import FeishuApi
from service.feishu.webhook import WebhookSender
from service.ops.doctor import LOCAL_HOSTS, Finding, ok, problem, warning

WEBHOOK_SIGN_REFUSED = 19021
WEBHOOK_BAD_REQUEST = 9499
WEBHOOK_TOKEN_INVALID = 19001
CHALLENGE_BYTES = 8
CALLBACK_TIMEOUT_SECONDS = 5


def check_feishu(api: FeishuApi, chats: list[str]) -> list[Finding]:
    """The tenant token (app id and secret), then the bot's membership of every chat."""
    api.tokens.token()
    found = [ok("feishu", say.FEISHU_TOKEN_OK.format(app_id=api.tokens.app_id))]
    for chat in chats:
        try:
            member = api.bot_in_chat(chat)
        except ServiceError as exc:
            found.append(
                problem("feishu", say.FEISHU_CHAT_FAILED.format(chat=chat, error=exc.message))
            )
            continue
        if member:
            found.append(ok("feishu", say.FEISHU_CHAT_MEMBER.format(chat=chat)))
        else:
            found.append(problem("feishu", say.FEISHU_CHAT_NOT_MEMBER.format(chat=chat)))
    return found


def check_webhook(sender: WebhookSender, *, signed: bool) -> list[Finding]:
    """The custom bot's signature setting, probed with a message Feishu refuses unposted."""
    code = sender.probe()
    host = urlsplit(sender.url).netloc
    if code == WEBHOOK_TOKEN_INVALID:
        return [problem("webhook", say.WEBHOOK_UNKNOWN_HOOK.format(host=host))]
    if code == WEBHOOK_SIGN_REFUSED:
        fix = say.WEBHOOK_SECRET_MISMATCH if signed else say.WEBHOOK_WANTS_SIGNATURE
        return [problem("webhook", say.WEBHOOK_SIGNATURE_REFUSED.format(fix=fix))]
    if code != WEBHOOK_BAD_REQUEST:
        return [problem("webhook", say.WEBHOOK_UNEXPECTED.format(host=host, code=code))]
    if signed:
        return [ok("webhook", say.WEBHOOK_SIGNED_OK.format(host=host))]
    return [ok("webhook", say.WEBHOOK_UNSIGNED.format(host=host))]


@dataclass(frozen=True)
class FeishuEventSettings:
    """FEISHU_EVENT_MODE and what each mode needs."""

    mode: str  # http | websocket
    verification_token: bool
    encrypt_key: bool
    public_base_url: str
    token: str | None = None  # FEISHU_VERIFICATION_TOKEN, for the URL check of the callback


def check_feishu_events(
    events: FeishuEventSettings, endpoint: Callable[[], str] | None
) -> list[Finding]:
    """http: a token or key to check the callbacks by, and a URL Feishu can reach; websocket:
    the long-connection endpoint grants this app a URL (`endpoint`, None without the app)."""
    if events.mode == "websocket":
        if endpoint is None:
            return [problem("feishu", say.FEISHU_WEBSOCKET_NEEDS_APP)]
        endpoint()
        return [ok("feishu", say.FEISHU_WEBSOCKET_OK)]
    found = []
    if not (events.verification_token or events.encrypt_key):
        found.append(problem("feishu", say.FEISHU_HTTP_NEEDS_TOKEN))
    elif not events.encrypt_key:
        found.append(warning("feishu", say.FEISHU_NO_ENCRYPT_KEY))
    callback = events.public_base_url.rstrip("/") + "/feishu/events"
    if (urlsplit(callback).hostname or "") in LOCAL_HOSTS:
        found.append(problem("feishu", say.FEISHU_CALLBACK_UNREACHABLE.format(callback=callback)))
    elif all(f.ok for f in found):
        found.append(check_callback(callback, events.token))
    return found


def check_callback(callback: str, token: str | None) -> Finding:
    """The callback URL answers Feishu's URL check (a `url_verification` challenge, as the
    console sends when the URL is saved) from this machine: said as checked only when it did."""
    challenge = secrets.token_hex(CHALLENGE_BYTES)
    body = {"type": "url_verification", "challenge": challenge, "token": token or ""}
    try:
        response = requests.post(  # a redirect would carry the token to another host
            callback, json=body, timeout=CALLBACK_TIMEOUT_SECONDS, allow_redirects=False
        )
    except requests.RequestException as exc:
        why = type(exc).__name__
        return warning("feishu", say.FEISHU_CALLBACK_UNCHECKED.format(callback=callback, why=why))
    try:
        answered = response.json().get("challenge") == challenge
    except (ValueError, AttributeError):
        answered = False
    if answered:
        return ok("feishu", say.FEISHU_EVENTS_OK.format(callback=callback))
    why = f"HTTP {response.status_code}, not verl-week's answer"
    return warning("feishu", say.FEISHU_CALLBACK_UNCHECKED.format(callback=callback, why=why))
