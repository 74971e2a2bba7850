"""Slack rendering: the weekly card and every answer, in zh and en, for real, empty, 2,000-PR
and hostile weeks, with zero Block Kit violations and no injection surviving."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from service.commands.answer import (
    AnswerKind,
    Caller,
    EngineContext,
    answer_failure,
    answer_text,
)
from service.commands.registry import answer_adapter
from service.core.models import CollectedPeriod, Digest
from service.render.limits import (
    ELLIPSIS,
    SLACK,
    SlackMessage,
    cut_mrkdwn,
    fit_slack,
    slack_violations,
)
from service.render.slack import (
    ACTION_REGENERATE,
    ACTION_REPORT,
    ACTION_RISKS,
    render_answer,
    render_digest,
)
from service.store.repository import Store
from tests.commands.builders import digest_from_week, huge_digest, real_digest
from tests.conftest import NOW, load_week

REPORT = "http://reports.test/reports/volcengine/verl/2026-W04"
INJECTIONS = ("<!channel>", "<!here>", "<@U123>", "<http://evil.test|click>", "<!subteam^S1>")
HOSTILE = "<!channel> urgent <@U123> <!here> <http://evil.test|click> <!subteam^S1> \u200b&amp;"
COMMANDS = [
    "help",
    "risks",
    "risks high",
    "risks low public",
    "top",
    "top 10",
    "summary",
    "trends",
    "week {week}",
    "pr {pr}",
    "pr 1",
    "regenerate",
    "subscribe",
    "unsubscribe",
    "nonsense",
    "risks 2001-W01",
    "pr x",
    "top 99",
]


def hostile_week() -> CollectedPeriod:
    base = load_week("2026-W04")
    prs = [
        pr.model_copy(
            update={
                "title": f"[{HOSTILE}] fix: {HOSTILE} " + "x" * 10_000,
                "body": f"{HOSTILE}\n" * 50,
                "author": "<!channel>",
            }
        )
        for pr in base.prs
    ]
    return base.model_copy(update={"prs": prs})


def empty_week() -> CollectedPeriod:
    return load_week("2026-W04").model_copy(update={"prs": []})


@pytest.fixture(scope="module")
def digests() -> dict[str, dict[str, Digest]]:
    weeks = {"real": load_week("2026-W04"), "empty": empty_week(), "hostile": hostile_week()}
    out = {
        lang: {name: digest_from_week(week, language=lang) for name, week in weeks.items()}
        for lang in ("en", "zh")
    }
    for lang in out:
        out[lang]["huge"] = huge_digest(lang, by_hand=True)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_real_core_2000_pr_digest_yields_a_valid_card(tmp_path: Any, lang: str) -> None:
    digest = huge_digest(lang)
    assert len(digest.prs) == 2000
    message = render_digest(digest, report_url=REPORT, lang=lang)
    assert slack_violations(message) == []
    ctx = _store_ctx(tmp_path, digest, lang)
    caller = Caller(user_id="UA", platform="slack", channel="C1")
    for text in ("risks", "top 10", "summary", "trends", f"pr {digest.prs[-1].number}"):
        assert slack_violations(render_answer(answer_text(text, caller, ctx), lang)) == []


def mrkdwn_texts(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        if value.get("type") == "mrkdwn":
            yield str(value["text"])
        for item in value.values():
            yield from mrkdwn_texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from mrkdwn_texts(item)


def assert_inert(message: SlackMessage) -> None:
    for text in [message.text, *mrkdwn_texts(message.blocks)]:
        for bad in INJECTIONS:
            assert bad not in text
        assert "\u200b" not in text
        # every remaining `<…>` is one of our links to an http(s) URL
        for link in re.findall(r"<([^>]*)>", text):
            assert link.startswith(("http://", "https://")), link


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", ["real", "empty", "huge", "hostile"])
def test_digest_card_fits_every_limit(
    digests: dict[str, dict[str, Digest]], lang: str, name: str
) -> None:
    digest = digests[lang][name]
    message = render_digest(digest, report_url=REPORT, lang=lang)
    assert slack_violations(message) == []
    assert message.blocks[0]["type"] == "header"
    actions = [b for b in message.blocks if b["type"] == "actions"]
    assert [e["action_id"] for e in actions[0]["elements"]] == [
        ACTION_REPORT,
        ACTION_RISKS,
        ACTION_REGENERATE,
    ]
    assert actions[0]["elements"][0]["url"] == REPORT
    assert json.loads(actions[0]["elements"][1]["value"]) == {
        "verb": "risks",
        "repo": digest.repo,
        "period": digest.period,
    }
    assert_inert(message)


def test_card_states_the_numbers_and_the_top_prs(digests: dict[str, dict[str, Digest]]) -> None:
    digest = digests["en"]["real"]
    message = render_digest(digest, report_url=REPORT, lang="en")
    text = "\n".join(mrkdwn_texts(message.blocks))
    assert f"*{digest.stats.prs}* PRs merged" in text
    best = max(digest.prs, key=lambda p: p.score)
    assert f"<{best.url}|#{best.number} " in text
    assert f"*{best.score}*/10" in text
    for risk in digest.risks[:1]:
        assert f"#{risk.prs[0]}" in text
    assert "▇" in text
    assert digest.repo in message.blocks[0]["text"]["text"]
    assert str(digest.stats.prs) in message.text


def test_injection_title_renders_inert(digests: dict[str, dict[str, Digest]]) -> None:
    message = render_digest(digests["en"]["hostile"], report_url=REPORT, lang="en")
    text = "\n".join(mrkdwn_texts(message.blocks))
    assert "&lt;!channel&gt; urgent &lt;@U123&gt;" in text
    assert_inert(message)


def test_huge_week_keeps_header_risks_and_report_button(
    digests: dict[str, dict[str, Digest]],
) -> None:
    digest = digests["en"]["huge"]
    assert len(digest.prs) == 2000
    message = render_digest(digest, report_url=REPORT, lang="en")
    text = "\n".join(mrkdwn_texts(message.blocks))
    assert "Top risks" in text
    assert any(b["type"] == "actions" for b in message.blocks)
    assert len(json.dumps(message.blocks, ensure_ascii=False)) <= SLACK.blocks_chars_budget


def _store_ctx(tmp_path: Any, digest: Digest, lang: str) -> EngineContext:
    store = Store.open(f"sqlite:///{tmp_path}/render-{lang}.db")
    store.save_digest(digest)
    return EngineContext(
        reader=store,
        repos=[digest.repo],
        language=lang,
        timezone=digest.timezone,
        clock=lambda: NOW,
        admins=frozenset({"UA"}),
        subscriptions=store,
        report_url=lambda repo, week: f"http://reports.test/reports/{repo}/{week}",
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", ["real", "empty", "huge", "hostile"])
def test_every_answer_fits_and_is_inert(
    tmp_path: Any, digests: dict[str, dict[str, Digest]], lang: str, name: str
) -> None:
    digest = digests[lang][name]
    ctx = _store_ctx(tmp_path, digest, lang)
    caller = Caller(user_id="UA", platform="slack", channel="C1")
    pr = digest.prs[0].number if digest.prs else 1
    kinds = set()
    for template in COMMANDS:
        reply = answer_text(template.format(week=digest.period, pr=pr), caller, ctx)
        kinds.add(reply.kind)
        message = render_answer(reply, lang)
        assert slack_violations(message) == [], template
        assert message.text.strip()
        assert_inert(message)
    assert AnswerKind.USAGE_ERROR in kinds
    assert AnswerKind.RISKS in kinds


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_sentence_answers_render(lang: str) -> None:
    views = {AnswerKind.RISKS, AnswerKind.PR, AnswerKind.TOP, AnswerKind.HELP}
    views |= {AnswerKind.SUMMARY, AnswerKind.TRENDS, AnswerKind.WEEK}
    said = [k for k in AnswerKind if k not in views]
    replies = [
        answer_adapter().validate_python(
            {"kind": kind, "key": "cmd.error.internal", "params": {"incident": "<!here>"}}
        )
        for kind in said
    ]
    for reply in [*replies, answer_failure("<!here>")]:
        message = render_answer(reply, lang)
        assert slack_violations(message) == []
        assert_inert(message)


def test_fit_drops_lowest_priority_first_and_keeps_essentials() -> None:
    blocks: list[dict[str, Any]] = [{"type": "header", "text": {"type": "plain_text", "text": "H"}}]
    for i in range(60):
        blocks.append(
            {
                "type": "section",
                "text": {"type": "mrkdwn", "text": f"p{i % 3 + 1} {i}"},
                "_priority": i % 3 + 1,
            }
        )
    blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": "risks"}})
    blocks.append(
        {
            "type": "actions",
            "elements": [
                {
                    "type": "button",
                    "action_id": "a",
                    "text": {"type": "plain_text", "text": "Full report"},
                    "url": REPORT,
                }
            ],
        }
    )
    fitted = fit_slack(SlackMessage("fallback", blocks), more_url=REPORT)
    assert slack_violations(fitted) == []
    assert len(fitted.blocks) == SLACK.blocks_per_message
    texts = [b["text"]["text"] for b in fitted.blocks if b["type"] == "section"]
    assert "risks" in texts
    kept = {p: [t for t in texts if t.startswith(p)] for p in ("p1 ", "p2 ", "p3 ")}
    assert (len(kept["p1 "]), len(kept["p2 "]), len(kept["p3 "])) == (7, 20, 20)
    assert kept["p1 "][0] == "p1 0"  # the last optional blocks go first
    assert fitted.blocks[0]["type"] == "header"
    assert fitted.blocks[-1]["type"] == "actions"
    assert "_priority" not in json.dumps(fitted.blocks)


def test_fit_cuts_every_element_limit() -> None:
    long = "word " * 2000
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": long}},
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": long},
            "fields": [{"type": "mrkdwn", "text": long} for _ in range(15)],
        },
        {"type": "context", "elements": [{"type": "mrkdwn", "text": "c"} for _ in range(12)]},
        {
            "type": "actions",
            "elements": [
                {
                    "type": "button",
                    "action_id": f"b{i}",
                    "value": "v",
                    "text": {"type": "plain_text", "text": long},
                }
                for i in range(30)
            ],
        },
    ]
    before = slack_violations(SlackMessage("t", blocks))
    assert len(before) > 5
    fitted = fit_slack(SlackMessage("t", blocks), more_url=REPORT)
    assert slack_violations(fitted) == []
    assert fitted.blocks[0]["text"]["text"].endswith(ELLIPSIS)


def test_cut_never_breaks_a_link_or_an_entity() -> None:
    text = "see <https://example.test/a/very/long/path|the label> and &amp; more " * 5
    for limit in range(5, len(text), 7):
        cut = cut_mrkdwn(text, limit)
        assert len(cut) <= limit
        assert cut.count("<") == cut.count(">")
        assert not re.search(r"&[a-z]*…$", cut)
    assert cut_mrkdwn("short", 10) == "short"


def test_violations_catch_what_slack_rejects() -> None:
    bad = SlackMessage(
        "",
        [
            {"type": "header", "text": {"type": "mrkdwn", "text": "x"}},
            {"type": "section", "_priority": 1},
            {"type": "video"},
        ],
    )
    problems = slack_violations(bad)
    assert any("fallback" in p for p in problems)
    assert any("plain_text" in p for p in problems)
    assert any("private key" in p for p in problems)
    assert any("without text" in p for p in problems)
    assert any("unexpected block type" in p for p in problems)


def test_real_weeks_in_both_languages_fit() -> None:
    for label in ("2025-W47", "2025-W48", "2026-W03"):
        for lang in ("en", "zh"):
            message = render_digest(real_digest(label, language=lang), report_url=REPORT, lang=lang)
            assert slack_violations(message) == []
