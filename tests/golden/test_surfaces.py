"""Every surface a reader sees, pinned for the four recorded weeks: the full report in each format,
the Slack and Feishu cards (app bot and custom-bot webhook), and the chat answers to a set of
commands, in both languages. Structural work (platform seam, composition root, catalogs) must keep
these byte for byte; `UPDATE_GOLDEN=1 .venv/bin/pytest tests/golden -n 0` rewrites them after an
intended change (read the diff first)."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import pytest

from service.commands.answer import EngineContext, answer, usage_error
from service.commands.context import Caller
from service.commands.parse import CommandError, parse_command
from service.core.digest import build_digest
from service.core.models import Digest
from service.core.profile import load_profile
from service.render import feishu, slack
from service.render.formats import render_format
from service.store.repository import Store
from tests.conftest import DATA, NOW, load_week

GOLDEN = DATA / "golden" / "surfaces"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
# each recorded week, with the recorded week before it where there is one
WEEKS = {"2025-W47": None, "2025-W48": "2025-W47", "2026-W03": None, "2026-W04": "2026-W03"}
LANGS = ("zh", "en")
FORMATS = {"markdown": "md", "html": "html", "json": "json", "slack": "slack.json"}
REPO = "volcengine/verl"
REPORT_URL = "http://reports.test/reports/volcengine/verl/{week}"
COMMANDS = [
    "help",
    "risks",
    "risks high",
    "risks 2025-W48",
    "top",
    "top 3",
    "summary",
    "trends",
    "week 2026-W03",
    "pr 5033",
    "pr 4956 2026-W04",
    "pr 99999",
    "risks module:rollout",
    "top 99",
    "week 2026-W99",
    "frobnicate",
    "regenerate",
    "subscriptions",
]


@functools.cache
def digest(week: str, lang: str) -> Digest:
    profile = load_profile(REPO)
    before_label = WEEKS[week]
    if before_label is None:
        return build_digest(load_week(week), profile, language=lang, now=NOW)
    before = load_week(before_label)
    previous = build_digest(before, profile, language=lang, now=NOW)
    return build_digest(
        load_week(week), profile, language=lang, now=NOW, previous=previous, earlier=before.prs
    )


def _check(path: Path, text: str) -> None:
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"golden file {path.name} was missing and has been written; rerun")
    assert text == path.read_text(encoding="utf-8"), (
        f"{path.relative_to(GOLDEN)} differs; if the change is intended, rerun with UPDATE_GOLDEN=1"
    )


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("fmt", [*FORMATS, "feishu"])
@pytest.mark.parametrize("week", WEEKS)
def test_report_and_cards_match(week: str, fmt: str, lang: str) -> None:
    url = REPORT_URL.format(week=week)
    if fmt == "feishu":
        for via in ("app", "webhook"):
            card = feishu.render_digest(digest(week, lang), report_url=url, lang=lang, via=via)
            text = json.dumps(card, ensure_ascii=False, indent=2)
            _check(GOLDEN / week / f"{lang}.feishu-{via}.json", text)
        return
    text = render_format(digest(week, lang), fmt, lang, report_url=url)
    _check(GOLDEN / week / f"{lang}.{FORMATS[fmt]}", text)


@pytest.fixture
def engine(tmp_path: Path) -> EngineContext:
    store = Store.open(f"sqlite:///{tmp_path}/golden.db")
    for week in WEEKS:
        store.save_digest(digest(week, "en"))
    return EngineContext(
        reader=store,
        repos=[REPO],
        language="en",
        timezone="Asia/Shanghai",
        clock=lambda: NOW,
        admins=frozenset({"UADMIN"}),
        subscriptions=store,
        report_url=lambda repo, week: f"http://reports.test/reports/{repo}/{week}",
    )


def _slug(command: str) -> str:
    return command.replace(" ", "_").replace(":", "-")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("command", COMMANDS)
def test_chat_answers_match(engine: EngineContext, command: str, lang: str) -> None:
    for platform in ("slack", "feishu"):
        caller = Caller(user_id="UREADER", platform=platform, channel="C1")
        try:
            reply = answer(parse_command(f"{command} lang:{lang}"), caller, engine)
        except CommandError as exc:  # what the adapters do with a command that does not parse
            reply = usage_error(exc)
            reply.language = lang
        if platform == "slack":
            message = slack.render_answer(reply, lang)
            payload: object = {"text": message.text, "blocks": message.blocks}
        else:
            payload = feishu.render_answer(reply, lang)
        text = json.dumps(payload, ensure_ascii=False, indent=2)
        _check(GOLDEN / "answers" / f"{_slug(command)}.{lang}.{platform}.json", text)
