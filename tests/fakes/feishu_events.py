"""Inbound Feishu events (schema 2.0) as the open platform sends them, for the endpoint tests:
a message to the bot (im.message.receive_v1) and a card button (card.action.trigger)."""

from __future__ import annotations

import itertools
import json
from typing import Any

BOT_OPEN_ID = "ou_bot"
_ids = itertools.count()


def _header(event_type: str, token: str, event_id: str | None) -> dict[str, Any]:
    return {
        "event_id": event_id or f"ev-{next(_ids)}",
        "event_type": event_type,
        "create_time": "1700000000000",
        "token": token,
        "app_id": "cli_test",
        "tenant_key": "t",
    }


def message_event(
    text: str,
    *,
    token: str,
    chat_type: str = "group",
    mentions: list[str] | None = None,
    event_id: str | None = None,
    sender: str = "ou_reader",
    chat_id: str = "oc_group1",
) -> dict[str, Any]:
    """A text message; in a group the bot is mentioned (`@_user_1`) unless `mentions` says."""
    keys = mentions if mentions is not None else ([BOT_OPEN_ID] if chat_type == "group" else [])
    header = _header("im.message.receive_v1", token, event_id)
    return {
        "schema": "2.0",
        "header": header,
        "event": {
            "sender": {"sender_id": {"open_id": sender}, "sender_type": "user", "tenant_key": "t"},
            "message": {
                "message_id": f"om_{header['event_id']}",
                "chat_id": chat_id,
                "chat_type": chat_type,
                "message_type": "text",
                "content": json.dumps({"text": text}),
                "mentions": [
                    {
                        "key": f"@_user_{i + 1}",
                        "id": {"open_id": who},
                        "name": who,
                        "tenant_key": "t",
                    }
                    for i, who in enumerate(keys)
                ],
            },
        },
    }


def action_event(
    action: str,
    operator: str,
    message_id: str,
    *,
    token: str,
    repo: str = "volcengine/verl",
    week: str = "2026-W04",
) -> dict[str, Any]:
    """A click on one of the weekly card's callback buttons (风险列表 / 重新生成)."""
    return {
        "schema": "2.0",
        "header": _header("card.action.trigger", token, None),
        "event": {
            "operator": {"open_id": operator, "tenant_key": "t"},
            "token": "c-callback-token",
            "action": {"value": {"action": action, "repo": repo, "week": week}, "tag": "button"},
            "host": "im_message",
            "context": {"open_message_id": message_id, "open_chat_id": "oc_group1"},
        },
    }
