"""Chat card formats: for each, its digest card and its command answers as JSON payloads, and the
size limits its renderer fits them to.

Slack and Feishu are built in (their renderers live in render/slack.py and render/feishu.py);
a platform registered later adds its own format here (service/platforms/registry.py does it), so
that `verl-week digest --format NAME` and `post --dry-run` reach every platform's card the same
way. Pure: no platform SDK, no network.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

# types only: `digest --format markdown` should not load the command answers (~0.06 s)
if TYPE_CHECKING:
    from service.commands.answer import Answer
    from service.core.models import Digest

# (digest, report_url, lang) → the card's payload, already fitted to the platform's limits
DigestCard = Callable[["Digest", str, str], dict[str, Any]]
# (answer, lang) → the payload of a command's answer, already fitted
AnswerCard = Callable[["Answer", str], dict[str, Any]]


@dataclass(frozen=True)
class CardFormat:
    """How one platform shows a digest and an answer, and the size limits both are fitted to."""

    name: str
    digest: DigestCard
    answer: AnswerCard
    limits: object  # the platform's limits (render/limits.py for the built-in ones)

    def digest_json(self, digest: Digest, *, report_url: str, lang: str) -> str:
        payload = self.digest(digest, report_url, lang)
        return json.dumps(payload, ensure_ascii=False, indent=2)


def _slack_digest(digest: Digest, report_url: str, lang: str) -> dict[str, Any]:
    from service.render import slack

    return slack.render_digest(digest, report_url=report_url, lang=lang).payload()


def _slack_answer(answer: Answer, lang: str) -> dict[str, Any]:
    from service.render import slack

    return slack.render_answer(answer, lang).payload()


def _feishu_digest(digest: Digest, report_url: str, lang: str) -> dict[str, Any]:
    from service.render import feishu

    return feishu.render_digest(digest, report_url=report_url, lang=lang)


def _feishu_answer(answer: Answer, lang: str) -> dict[str, Any]:
    from service.render import feishu

    return feishu.render_answer(answer, lang)


def _builtin() -> dict[str, CardFormat]:
    from service.render.limits import FEISHU, SLACK

    return {
        "slack": CardFormat("slack", _slack_digest, _slack_answer, SLACK),
        "feishu": CardFormat("feishu", _feishu_digest, _feishu_answer, FEISHU),
    }


_FORMATS: dict[str, CardFormat] = _builtin()


def register_card_format(card: CardFormat) -> None:
    """Make `card` a format of its own (a new platform's); a built-in name is never replaced."""
    known = _FORMATS.get(card.name)
    if known is not None and known is not card:
        raise ValueError(f"card format {card.name!r} is already registered")
    _FORMATS[card.name] = card


def card_format(name: str) -> CardFormat | None:
    return _FORMATS.get(name)


def card_format_names() -> list[str]:
    return list(_FORMATS)


SLACK_CARD = _FORMATS["slack"]
FEISHU_CARD = _FORMATS["feishu"]
