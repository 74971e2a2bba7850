"""Fuzzing the whole analysis and every renderer: hostile PR data → build_digest (verl profile) →
report Markdown/HTML/JSON, Slack card and answers, Feishu card (app and webhook) and answers,
terminal text. Platform limits must hold and no mention, tag or script link may survive."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.commands.answer import Answer, Caller, EngineContext, answer_text
from service.core.digest import build_digest
from service.core.models import CollectedPeriod, Digest, PullRequest
from service.core.profile import RepoProfile, load_profile
from service.render import feishu, report, slack
from service.render.feishu_limits import feishu_violations
from service.render.limits import slack_violations
from service.render.text import render_answer_text
from service.store.repository import Store
from tests.conftest import NOW, load_week
from tests.fuzz import inert
from tests.fuzz.strategies import HOSTILE, REPO, hostile_text, hostile_week, pull_requests

REPORT_URL = "https://reports.test/reports/volcengine/verl/2026-W04"
BASE = load_week("2026-W04")
PROFILE: RepoProfile = load_profile(REPO)
COMMANDS = ["risks", "risks high", "top 5", "summary", "trends", "week", "help", "pr {n}",
            "pr 1", "subscribe", "regenerate"]  # fmt: skip
FUZZ = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    folder: Path = tmp_path_factory.mktemp("fuzz")
    opened = Store.open(f"sqlite:///{folder}/fuzz.db")
    yield opened
    opened.engine.dispose()


def engine(store: Store, lang: str) -> EngineContext:
    return EngineContext(
        reader=store,
        repos=[REPO],
        language=lang,
        timezone=BASE.window.timezone,
        clock=lambda: NOW,
        admins=frozenset({"UADMIN"}),
        subscriptions=store,
        report_url=lambda _repo, _week: REPORT_URL,
    )


def check_slack(message: slack.SlackMessage) -> None:
    assert slack_violations(message) == []
    assert inert.slack_problems(message.text, message.blocks) == []


def check_feishu(card: dict[str, object], via: feishu.Via) -> None:
    assert feishu_violations(card, via=via) == []
    assert inert.feishu_problems(card) == []


def check_report(digest: Digest, lang: str) -> None:
    markdown = report.render_markdown(digest, lang)
    assert inert.markdown_problems(markdown) == []
    assert inert.html_problems(report.render_html(digest, lang)) == []
    assert Digest.model_validate(json.loads(report.render_json(digest))) == digest


def check_cards(digest: Digest, lang: str) -> None:
    check_slack(slack.render_digest(digest, report_url=REPORT_URL, lang=lang))
    for via in ("app", "webhook"):
        check_feishu(feishu.render_digest(digest, report_url=REPORT_URL, lang=lang, via=via), via)


def check_answer(reply: Answer, lang: str, digest: Digest) -> None:
    check_slack(slack.render_answer(reply, lang))
    check_feishu(feishu.render_answer(reply, lang), "app")
    assert inert.markdown_problems(render_answer_text(reply, lang, digest)) == []


def build(week: CollectedPeriod, lang: str) -> Digest:
    digest = build_digest(week, PROFILE, language=lang, now=NOW)
    assert sorted(p.number for p in digest.prs) == sorted(p.number for p in week.prs)
    return digest


@pytest.mark.slow
@FUZZ
@given(prs=pull_requests(BASE.window.start), lang=st.sampled_from(["zh", "en"]))
def test_hostile_weeks_render_within_limits_and_inert(
    store: Store, prs: list[PullRequest], lang: str
) -> None:
    digest = build(hostile_week(BASE, prs), lang)
    check_report(digest, lang)
    check_cards(digest, lang)
    store.save_digest(digest)
    ctx = engine(store, lang)
    for text in COMMANDS:
        reply = answer_text(text.format(n=prs[0].number), Caller("UPLAIN", "slack", "C1"), ctx)
        check_answer(reply, lang, digest)


@pytest.mark.slow
@FUZZ
@given(
    prs=pull_requests(BASE.window.start, count=3),
    extra=st.lists(
        st.sampled_from(BASE.prs), min_size=5, max_size=30, unique_by=lambda p: p.number
    ),
)
def test_hostile_prs_among_real_ones(prs: list[PullRequest], extra: list[PullRequest]) -> None:
    digest = build(hostile_week(BASE, [*extra, *prs]), "en")
    check_report(digest, "en")
    check_cards(digest, "en")


@FUZZ
@given(text=hostile_text, lang=st.sampled_from(["zh", "en"]))
def test_hostile_command_text_gets_an_inert_answer(store: Store, text: str, lang: str) -> None:
    digest = build(BASE, lang)
    store.save_digest(digest)
    for line in (text, f"pr {text}", f"risks {text}", f"subscribe {text}"):
        reply = answer_text(line, Caller("UPLAIN", "feishu", "oc_1"), engine(store, lang))
        check_answer(reply, lang, digest)
    assert store.subscriptions(REPO) == []


def test_every_hostile_fragment_in_one_giant_pr() -> None:
    """Each fragment at once, in a 100 kB body, a title, an author, paths and a patch."""
    everything = " ".join(HOSTILE)
    first = BASE.prs[0]
    patch = f"@@ -1 +1 @@\n+{everything}"
    files = [
        f.model_copy(update={"path": f"verl/{everything}.py", "patch": patch})
        for f in first.files[:3]
    ]
    pr = first.model_copy(
        update={
            "title": everything,
            "body": (everything + "\n") * 200,
            "author": everything,
            "files": files,
            "merged_at": BASE.window.start + timedelta(hours=3),
        }
    )
    assert len(pr.body.encode()) > 100_000
    for lang in ("zh", "en"):
        digest = build(hostile_week(BASE, [pr, *BASE.prs[1:]]), lang)
        check_report(digest, lang)
        check_cards(digest, lang)


def test_the_checks_catch_raw_hostile_text() -> None:
    """The checks are not vacuous: unescaped fragments are reported on every platform."""
    for raw in ("<!channel>", "<@U123>", "<javascript:alert(1)|x>"):
        assert inert.slack_problems(raw, [{"type": "section", "text": {"text": raw}}])
    assert inert.slack_problems("x", [{"type": "button", "url": "javascript:alert(1)"}])
    for raw in ("<at id=all></at>", "[x](javascript:alert(1))", "<font color=red>"):
        assert inert.feishu_problems({"body": {"elements": [{"content": raw}]}})
    for raw in ("<script>x</script>", "<!channel>", "[x](javascript:alert(1))"):
        assert inert.markdown_problems(raw)
    for raw in ("<script>1</script>", '<img src=x onerror="a()">', '<a href="javascript:x">'):
        assert inert.html_problems(raw)
