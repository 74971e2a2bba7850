"""Every Slack and Feishu size limit we rely on, and the code that makes a Slack payload fit.

Slack values: shared/reference/platform-facts.md §2.4 (slack_sdk.models.blocks validators);
Feishu values: §3.2-§3.4. Feishu's fitting (it counts bytes of the request body as sent) is in
`render/feishu_limits.py`, which reads its numbers from here.

Fitting policy (one, deterministic): per-element limits are cut first; then optional blocks
(those carrying `"_priority": 1..3`, 1 = least important) are dropped, lowest priority and
last first, until the block count and the total budget hold; then the longest texts are cut
with "…"; as a last resort the body becomes one section linking to the full report. Blocks
without `_priority` (header, top risks, the full-report button) are never dropped. Private
keys (`_…`) are stripped before sending.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

PRIORITY_KEY = "_priority"
ELLIPSIS = "…"
SHRINK_FACTOR = 0.75
MAX_SHRINK_ROUNDS = 40

Block = dict[str, Any]


@dataclass(frozen=True)
class SlackLimits:
    """Block Kit limits (§2.4 of platform-facts.md)."""

    blocks_per_message: int = 50  # §2.4 blocks per message
    section_text_chars: int = 3000  # §2.4 SectionBlock.text_max_length
    section_fields: int = 10  # §2.4 SectionBlock.fields_max_length
    field_text_chars: int = 2000  # §2.4 section field text
    header_text_chars: int = 150  # §2.4 HeaderBlock.text_max_length, plain_text only
    context_elements: int = 10  # §2.4 ContextBlock.elements_max_length
    text_object_chars: int = 3000  # §2.4 a mrkdwn text object (context element) — as section
    actions_elements: int = 25  # §2.4 ActionsBlock.elements_max_length
    button_text_chars: int = 75  # §2.4 ButtonElement text
    button_url_chars: int = 3000  # §2.4 ButtonElement url
    button_value_chars: int = 2000  # §2.4 ButtonElement value
    action_id_chars: int = 255  # §2.4 InteractiveElement action_id
    block_id_chars: int = 255  # §2.4 block_id_max_length
    message_text_chars: int = 40_000  # §2.4 top-level text is truncated by Slack above this
    blocks_chars_budget: int = 12_000  # §2.4 undocumented combined cap (msg_blocks_too_long)


SLACK = SlackLimits()


@dataclass(frozen=True)
class FeishuLimits:
    """Documented limits, with the section of platform-facts.md each comes from."""

    app_message_body_bytes: int = 30 * 1024  # §3.3 im/v1/messages: card body ≤ 30 KB (230025)
    webhook_body_bytes: int = 20 * 1024  # §3.2 custom bot: request body ≤ 20 KB
    card_elements: int = 200  # §3.4 card 2.0: ≤ 200 components, text elements count (300305)
    button_text_chars: int = 100  # §3.4 button text ≤ 100 characters
    header_text_tags: int = 3  # §3.4 header text_tag_list ≤ 3
    uuid_chars: int = 50  # §3.3 uuid ≤ 50 characters
    # Room kept for the envelope fields that are unknown while fitting (a chat id is
    # "oc_" + 32 hex; we reserve more) — not a Feishu number, our margin.
    receive_id_reserve_chars: int = 64


FEISHU = FeishuLimits()


@dataclass
class SlackMessage:
    """A Slack message payload: notification `text` plus Block Kit `blocks`."""

    text: str
    blocks: list[Block] = field(default_factory=list)

    def payload(self) -> dict[str, Any]:
        return {"text": self.text, "blocks": self.blocks}


# --- measuring -----------------------------------------------------------------------------


def blocks_size(blocks: list[Block]) -> int:
    """Characters of the blocks as sent (JSON, private keys included: they are stripped later)."""
    return len(json.dumps(blocks, ensure_ascii=False))


def _private_keys(value: Any, path: str = "") -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key.startswith("_"):
                yield f"{path}.{key}"
            yield from _private_keys(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _private_keys(item, f"{path}[{i}]")


def _text_of(obj: Any) -> str:
    return str(obj.get("text", "")) if isinstance(obj, dict) else ""


def _over(what: str, length: int, limit: int) -> list[str]:
    return [f"{what}: {length} > {limit}"] if length > limit else []


def _section_violations(block: Block, where: str, limits: SlackLimits) -> list[str]:
    out = _over(f"{where} text", len(_text_of(block.get("text"))), limits.section_text_chars)
    fields = block.get("fields") or []
    out += _over(f"{where} fields", len(fields), limits.section_fields)
    for j, item in enumerate(fields):
        out += _over(f"{where} field {j}", len(_text_of(item)), limits.field_text_chars)
    if not block.get("text") and not fields:
        out.append(f"{where}: section without text or fields")
    return out


def _button_violations(element: Block, where: str, limits: SlackLimits) -> list[str]:
    out = _over(f"{where} text", len(_text_of(element.get("text"))), limits.button_text_chars)
    out += _over(f"{where} url", len(str(element.get("url", ""))), limits.button_url_chars)
    out += _over(f"{where} value", len(str(element.get("value", ""))), limits.button_value_chars)
    out += _over(
        f"{where} action_id", len(str(element.get("action_id", ""))), limits.action_id_chars
    )
    return out


def _block_violations(block: Block, where: str, limits: SlackLimits) -> list[str]:
    kind = block.get("type")
    out = _over(f"{where} block_id", len(str(block.get("block_id", ""))), limits.block_id_chars)
    if kind == "header":
        text = block.get("text") or {}
        if text.get("type") != "plain_text":
            out.append(f"{where}: header text must be plain_text")
        out += _over(f"{where} header", len(_text_of(text)), limits.header_text_chars)
    elif kind == "section":
        out += _section_violations(block, where, limits)
    elif kind == "context":
        elements = block.get("elements") or []
        out += _over(f"{where} elements", len(elements), limits.context_elements)
        for j, item in enumerate(elements):
            out += _over(f"{where} element {j}", len(_text_of(item)), limits.text_object_chars)
    elif kind == "actions":
        elements = block.get("elements") or []
        out += _over(f"{where} elements", len(elements), limits.actions_elements)
        for j, item in enumerate(elements):
            out += _button_violations(item, f"{where} button {j}", limits)
    elif kind != "divider":
        out.append(f"{where}: unexpected block type {kind!r}")
    return out


def slack_violations(message: SlackMessage, limits: SlackLimits = SLACK) -> list[str]:
    """Every Block Kit limit `message` breaks (empty: Slack accepts it). Senders log a non-empty
    list at error level; tests assert it is empty."""
    out: list[str] = []
    if not message.text.strip():
        out.append("message: no top-level text fallback")
    out += _over("message text", len(message.text), limits.message_text_chars)
    out += _over("blocks", len(message.blocks), limits.blocks_per_message)
    out += _over("blocks size", blocks_size(message.blocks), limits.blocks_chars_budget)
    out += [f"private key {key}" for key in _private_keys(message.blocks)]
    for i, block in enumerate(message.blocks):
        out += _block_violations(block, f"block {i} ({block.get('type')})", limits)
    return out


def payload_violations(payload: dict[str, Any], limits: SlackLimits = SLACK) -> list[str]:
    """slack_violations of a raw API payload (`text` + `blocks`, blocks possibly JSON text)."""
    blocks = payload.get("blocks") or []
    if isinstance(blocks, str):
        blocks = json.loads(blocks)
    return slack_violations(SlackMessage(str(payload.get("text") or ""), list(blocks)), limits)


# --- cutting -------------------------------------------------------------------------------


def cut_mrkdwn(text: str, limit: int) -> str:
    """`text` cut to `limit` characters with "…", never inside an entity or a `<…>` link."""
    if len(text) <= limit:
        return text
    cut = text[: max(limit - len(ELLIPSIS), 0)]
    space = cut.rfind(" ")
    if space > len(cut) * SHRINK_FACTOR:
        cut = cut[:space]
    opened = cut.rfind("<")
    if opened > cut.rfind(">"):
        cut = cut[:opened]
    amp = cut.rfind("&")
    if amp > cut.rfind(";"):
        cut = cut[:amp]
    return cut.rstrip() + ELLIPSIS


def _cut_text_obj(obj: Any, limit: int) -> None:
    if isinstance(obj, dict) and isinstance(obj.get("text"), str):
        obj["text"] = cut_mrkdwn(obj["text"], limit)


def _cut_block(block: Block, limits: SlackLimits) -> None:
    kind = block.get("type")
    if kind == "header":
        _cut_text_obj(block.get("text"), limits.header_text_chars)
    elif kind == "section":
        _cut_text_obj(block.get("text"), limits.section_text_chars)
        if "fields" in block:
            block["fields"] = block["fields"][: limits.section_fields]
            for item in block["fields"]:
                _cut_text_obj(item, limits.field_text_chars)
    elif kind == "context":
        block["elements"] = block.get("elements", [])[: limits.context_elements]
        for item in block["elements"]:
            _cut_text_obj(item, limits.text_object_chars)
    elif kind == "actions":
        block["elements"] = block.get("elements", [])[: limits.actions_elements]
        for item in block["elements"]:
            _cut_text_obj(item.get("text"), limits.button_text_chars)


def _fits(blocks: list[Block], limits: SlackLimits) -> bool:
    return (
        len(blocks) <= limits.blocks_per_message
        and blocks_size(strip_private(blocks)) <= limits.blocks_chars_budget
    )


def _drop_optional(blocks: list[Block], limits: SlackLimits) -> list[Block]:
    kept = list(blocks)
    while not _fits(kept, limits):
        optional = [(b[PRIORITY_KEY], i) for i, b in enumerate(kept) if PRIORITY_KEY in b]
        if not optional:
            break
        _, index = min(optional, key=lambda item: (item[0], -item[1]))
        del kept[index]
    return kept


def _text_objects(blocks: list[Block]) -> Iterator[dict[str, Any]]:
    for block in blocks:
        if block.get("type") == "section":
            if isinstance(block.get("text"), dict):
                yield block["text"]
            yield from block.get("fields", [])
        elif block.get("type") == "context":
            yield from block.get("elements", [])


def _shrink_longest(blocks: list[Block], limits: SlackLimits) -> list[Block]:
    for _ in range(MAX_SHRINK_ROUNDS):
        if _fits(blocks, limits):
            break
        objects = list(_text_objects(blocks))
        if not objects:
            break
        longest = max(objects, key=lambda o: len(str(o.get("text", ""))))
        text = str(longest.get("text", ""))
        longest["text"] = cut_mrkdwn(text, max(int(len(text) * SHRINK_FACTOR), 1))
    return blocks


def strip_private(value: Any) -> Any:
    """A copy of `value` without keys that start with `_` (template hints such as `_priority`)."""
    if isinstance(value, dict):
        return {k: strip_private(v) for k, v in value.items() if not k.startswith("_")}
    if isinstance(value, list):
        return [strip_private(item) for item in value]
    return value


def _fallback_blocks(blocks: list[Block], more_url: str) -> list[Block]:
    header = next((b for b in blocks if b.get("type") == "header"), None)
    body = {"type": "section", "text": {"type": "mrkdwn", "text": f"<{more_url}|{ELLIPSIS}>"}}
    return [b for b in (header, body) if b is not None]


def fit_slack(
    message: SlackMessage, *, more_url: str = "", limits: SlackLimits = SLACK
) -> SlackMessage:
    """`message` condensed until it breaks no Block Kit limit (see the module docstring)."""
    blocks = copy.deepcopy(message.blocks)
    for block in blocks:
        _cut_block(block, limits)
    blocks = _drop_optional(blocks, limits)
    blocks = _shrink_longest(blocks, limits)
    blocks = strip_private(blocks)
    if not _fits(blocks, limits) and more_url:
        blocks = _fallback_blocks(blocks, more_url)
    text = cut_mrkdwn(message.text, limits.message_text_chars) or ELLIPSIS
    return SlackMessage(text=text, blocks=blocks)
