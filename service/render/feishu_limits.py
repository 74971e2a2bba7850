"""Fitting Feishu cards to their limits (the numbers: FeishuLimits in limits.py), the exact
request bodies they are measured on, and the one policy that makes any card fit: drop optional
elements, cut long text, fall back.

Feishu counts bytes of the request body as sent. The app bot sends the card as a JSON *string*
inside the JSON body (its quotes are escaped again); the custom bot sends it as an object. Both
bodies are built here, so the senders send exactly what was measured.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any, Literal

from service.render.limits import FEISHU, FeishuLimits

Via = Literal["app", "webhook"]
PRIORITY_KEY = "_priority"
ELLIPSIS = "…"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def strip_private(card: dict[str, Any]) -> dict[str, Any]:
    """A copy of `card` without our `_private` keys (Feishu 2.0 rejects unknown properties)."""

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if not k.startswith("_")}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    cleaned: dict[str, Any] = clean(card)
    return cleaned


def card_content(card: dict[str, Any]) -> str:
    """The card as the JSON string the app bot sends in `content`."""
    return _dumps(strip_private(card))


def app_message_body(card: dict[str, Any], *, receive_id: str, uuid: str | None) -> bytes:
    """The im/v1/messages create body, byte for byte."""
    body: dict[str, Any] = {
        "receive_id": receive_id,
        "msg_type": "interactive",
        "content": card_content(card),
    }
    if uuid:
        body["uuid"] = uuid
    return _dumps(body).encode()


def reply_message_body(card: dict[str, Any], *, uuid: str | None = None) -> bytes:
    """The im/v1/messages/{id}/reply body."""
    body: dict[str, Any] = {"msg_type": "interactive", "content": card_content(card)}
    if uuid:
        body["uuid"] = uuid
    return _dumps(body).encode()


def patch_message_body(card: dict[str, Any]) -> bytes:
    """The PATCH im/v1/messages/{id} body."""
    return _dumps({"content": card_content(card)}).encode()


def webhook_body(card: dict[str, Any], *, timestamp: str | None, sign: str | None) -> bytes:
    """The custom-bot body: `card` is an object here, with `timestamp` and `sign` when signed."""
    body: dict[str, Any] = {}
    if timestamp is not None and sign is not None:
        body.update(timestamp=timestamp, sign=sign)
    body.update(msg_type="interactive", card=strip_private(card))
    return _dumps(body).encode()


def worst_case_body(card: dict[str, Any], via: Via, limits: FeishuLimits = FEISHU) -> bytes:
    """The largest body `card` can be sent in, with every envelope field at its maximum."""
    if via == "webhook":
        return webhook_body(card, timestamp="9" * 10, sign="=" * 44)
    return app_message_body(
        card, receive_id="o" * limits.receive_id_reserve_chars, uuid="u" * limits.uuid_chars
    )


def body_limit(via: Via, limits: FeishuLimits = FEISHU) -> int:
    return limits.webhook_body_bytes if via == "webhook" else limits.app_message_body_bytes


def iter_components(value: Any) -> Iterator[dict[str, Any]]:
    """Every component of a card (any object with a `tag`), nested ones included."""
    if isinstance(value, dict):
        if "tag" in value:
            yield value
        for child in value.values():
            yield from iter_components(child)
    elif isinstance(value, list):
        for child in value:
            yield from iter_components(child)


def _button_violations(card: dict[str, Any], limits: FeishuLimits) -> list[str]:
    out: list[str] = []
    for comp in iter_components(card.get("body", {})):
        if comp.get("tag") == "button":
            text = str(comp.get("text", {}).get("content", ""))
            if len(text) > limits.button_text_chars:
                out.append(f"button text has {len(text)} chars > {limits.button_text_chars}")
    return out


def feishu_violations(
    card: dict[str, Any], *, via: Via, limits: FeishuLimits = FEISHU
) -> list[str]:
    """Every limit `card` breaks when sent `via` the app bot or the custom bot; [] when it fits."""
    out: list[str] = []
    if card.get("schema") != "2.0":
        out.append("card is not schema 2.0")
    size = len(worst_case_body(card, via, limits))
    if size > body_limit(via, limits):
        out.append(f"{via} body is {size} bytes > {body_limit(via, limits)}")
    count = sum(1 for _ in iter_components(strip_private(card).get("body", {})))
    if count > limits.card_elements:
        out.append(f"card has {count} components > {limits.card_elements}")
    out.extend(_button_violations(card, limits))
    return out


def _fits(card: dict[str, Any], via: Via, limits: FeishuLimits) -> bool:
    return not feishu_violations(card, via=via, limits=limits)


def _drop_least_important(elements: list[dict[str, Any]]) -> bool:
    """Drop the last element of the lowest `_priority` (1 = least important, as for Slack)."""
    ranked = [int(e.get(PRIORITY_KEY, 0)) for e in elements]
    optional = [rank for rank in ranked if rank > 0]
    if not optional:
        return False
    least = min(optional)
    index = len(ranked) - 1 - ranked[::-1].index(least)
    del elements[index]
    return True


def _cut_longest_markdown(elements: list[dict[str, Any]]) -> bool:
    """Drop the last line of the longest multi-line markdown element, marking the cut."""
    candidates = [
        e for e in iter_components(elements) if e.get("tag") == "markdown" and "\n" in e["content"]
    ]
    if not candidates:
        return False
    longest = max(candidates, key=lambda e: len(e["content"].encode()))
    lines = longest["content"].rstrip(ELLIPSIS).rstrip("\n").split("\n")
    if len(lines) <= 1:
        return False
    longest["content"] = "\n".join(lines[:-1]) + "\n" + ELLIPSIS
    return True


def _fallback(card: dict[str, Any], more_url: str, note: str) -> dict[str, Any]:
    kept = [e for e in card["body"]["elements"] if e.get("_keep") == "actions"]
    link = f"[{note}]({more_url})" if more_url else note
    return {**card, "body": {"elements": [{"tag": "markdown", "content": link}, *kept]}}


def fit_feishu(
    card: dict[str, Any],
    *,
    via: Via,
    more_url: str,
    more_text: str = ELLIPSIS,
    limits: FeishuLimits = FEISHU,
) -> dict[str, Any]:
    """`card` made to fit: (1) drop `_priority` 1, 2, 3 elements, (2) cut the longest markdown
    line by line, (3) fall back to one link to the full report. Header and actions stay."""
    fitted = copy.deepcopy(card)
    elements: list[dict[str, Any]] = fitted["body"]["elements"]
    while not _fits(fitted, via, limits) and _drop_least_important(elements):
        pass
    while not _fits(fitted, via, limits) and _cut_longest_markdown(elements):
        pass
    if not _fits(fitted, via, limits):
        fitted = _fallback(fitted, more_url, more_text)
    return strip_private(fitted)
