"""The fake platform's cards: its own template and strings, its own limit and escaping; command
answers reuse the service's Markdown answer text (the catalogs' sentences)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from service.commands.kinds import Answer, PrAnswer, RisksAnswer, TopAnswer
from service.core.models import Digest
from service.render.cards import CardFormat
from service.render.text import render_answer_text

HERE = Path(__file__).parent
TOP_PRS = 5
ELLIPSIS = "…"


@dataclass(frozen=True)
class FakeChatLimits:
    text_chars: int = 1500  # the platform refuses longer messages


LIMITS = FakeChatLimits()


def chat_text(value: object) -> str:
    """Untrusted text can't mention anyone: `@` becomes a full-width `＠`."""
    return str(value).replace("@", "＠")


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # noqa: S701 - plain text; untrusted values go through |chat
        keep_trailing_newline=True,
    )
    env.filters["chat"] = chat_text
    return env


@cache
def _strings() -> dict[str, dict[str, str]]:
    return tomllib.loads((HERE / "strings.toml").read_text(encoding="utf-8"))


def fit(text: str) -> str:
    limit = LIMITS.text_chars
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


def render_digest(digest: Digest, report_url: str, lang: str) -> dict[str, Any]:
    prs = sorted(digest.prs, key=lambda p: (-p.score, p.number))[:TOP_PRS]
    text = (
        _environment()
        .get_template("card.txt.j2")
        .render(digest=digest, prs=prs, report_url=report_url, t=_strings()[lang])
    )
    return {"text": fit(text)}


def render_answer(answer: Answer, lang: str) -> dict[str, Any]:
    """PRs in its own lines; any other answer as the catalogs word it (the terminal's text)."""
    pr = answer.pr if isinstance(answer, PrAnswer) else None
    prs = answer.prs if isinstance(answer, TopAnswer | RisksAnswer) else []
    sentence = "" if pr or prs else render_answer_text(answer, lang)
    text = _environment().get_template("answer.txt.j2").render(pr=pr, prs=prs, sentence=sentence)
    return {"text": fit(text)}


FAKE_CHAT_CARD = CardFormat("fake-chat", render_digest, render_answer, LIMITS)
