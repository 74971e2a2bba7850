"""The model's narrative through the real pipeline (wiring, store, jobs) against a fake
OpenAI-compatible server on loopback: checked sentences reach the stored digest, answers are
cached (rebuilds, commands and a second channel make no new call; new data makes one), and every
failure leaves the deterministic digest, on time, with one log line saying why."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from service import wiring
from service.commands.answer import Caller, answer, answer_text
from service.commands.kinds import PrAnswer
from service.core.models import CollectedPeriod, Digest
from service.core.weeks import window_for
from service.observe.logs import JsonFormatter, RequestIdFilter, TextFormatter
from service.pipeline.jobs import Pipeline, build_week, regenerate, run_week
from service.render.report import render_markdown
from service.settings import Settings
from tests.conftest import load_week
from tests.fakes.feishu import serve_feishu
from tests.fakes.openai import (
    API_KEY,
    MODEL,
    FakeModel,
    recorded_answer,
    serve_model,
    verify_data,
)
from tests.fakes.slack import BOT_TOKEN, running_fake_slack
from tests.periods import period

WEEK = window_for(2026, 4, "Asia/Shanghai")
REPO = "volcengine/verl"
GOOD = {lang: recorded_answer(f"2026-W04.good.{lang}") for lang in ("zh", "en")}


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with serve_model() as fake:
        yield fake


@pytest.fixture
def llm_settings(
    make_settings: Callable[..., Settings], model: FakeModel
) -> Callable[..., Settings]:
    def build(**overrides: object) -> Settings:
        values: dict[str, object] = {
            "llm_base_url": model.url,
            "llm_api_key": API_KEY,
            "llm_model": MODEL,
            # the fake answers at once; a loaded CI machine needs the room (the hung model's
            # test sets its own short bound)
            "llm_timeout_seconds": 20,
        }
        return make_settings(**{**values, **overrides})

    return build


# the failures' test: a hung model is cut at 2 s
HASTY = {"llm_timeout_seconds": 2}


@pytest.fixture
def pipeline(llm_settings: Callable[..., Settings]) -> Pipeline:
    return wiring.build_pipeline(llm_settings(), sample=True)


def _model_log(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The narrator's records of this test's own builds: the capture also holds what threads an
    earlier test left behind log meanwhile (seen on loaded machines: one extra record)."""
    me = threading.get_ident()
    return [r for r in caplog.records if r.name == "service.pipeline.narrator" and r.thread == me]


def test_checked_sentences_reach_the_stored_digest_and_tokens_the_log(
    pipeline: Pipeline, model: FakeModel, caplog: pytest.LogCaptureFixture
) -> None:
    model.answer(GOOD["zh"])
    with caplog.at_level(logging.INFO, logger="service.pipeline.narrator"):
        digest = build_week(pipeline, REPO, WEEK)
    assert digest.analysis is not None
    assert digest.analysis.model == MODEL
    assert digest.analysis.dropped == []
    assert len(digest.analysis.summary) == 5
    assert digest.analysis.usage.prompt > 0
    stored = pipeline.store.get_digest(REPO, period("2026-W04"), "zh")
    assert stored is not None
    assert stored.analysis == digest.analysis
    (line,) = _model_log(caplog)
    assert line.getMessage() == "model narrative"
    usage = digest.analysis.usage
    assert line.__dict__["usage_prompt"] == usage.prompt
    assert line.__dict__["usage"] == usage.prompt + usage.completion
    assert line.__dict__["cached"] is False
    # the counts survive the log's masking of secrets, in both formats
    RequestIdFilter().filter(line)
    text = TextFormatter().format(line)
    assert f"usage={usage.prompt + usage.completion} usage_prompt={usage.prompt} " in text
    assert json.loads(JsonFormatter().format(line))["usage_completion"] == usage.completion
    assert usage.prompt >= 1000  # a count of 4+ digits is what a `*token*=` mask would hide
    sent = model.last_request()
    assert sent["response_format"]["type"] == "json_schema"
    assert "<<<WEEK_DATA" in sent["messages"][1]["content"]


def test_an_invented_answer_keeps_its_audit_list_in_the_digest(
    llm_settings: Callable[..., Settings], model: FakeModel
) -> None:
    # the rules alone: this fake verifier entails whatever it is asked, and would restore the
    # invented figures the rules could only not confirm (tests/core/analyst/test_deferral.py)
    pipeline = wiring.build_pipeline(llm_settings(llm_verify_enabled=False), sample=True)
    model.answer(recorded_answer("2026-W04.bad.zh"))
    digest = build_week(pipeline, REPO, WEEK)
    assert digest.analysis is not None
    assert len(digest.analysis.dropped) == 13
    assert {d.section for d in digest.analysis.dropped} >= {"headline", "summary", "pr_points"}
    stored = pipeline.store.get_digest(REPO, period("2026-W04"), "zh")
    assert stored is not None
    assert stored.analysis is not None
    assert stored.analysis.dropped == digest.analysis.dropped


def test_an_invented_figure_the_rules_could_not_confirm_goes_to_the_verifier(
    pipeline: Pipeline, model: FakeModel
) -> None:
    # the rules find no "35%" in #4280's data (not found, no contradiction): the verifier
    # judges it, over HTTP; refused, it stays in the audit list with the verifier's reason
    invented = "#4280 让训练吞吐提升了 35%，峰值显存降低 3 倍。"
    model.judge = lambda s: (
        ("contradicted", "no 35% in #4280's data")
        if "35%" in s["text"]
        else ("entailed", "the facts state it")
    )
    model.answer(recorded_answer("2026-W04.bad.zh"))
    digest = build_week(pipeline, REPO, WEEK)
    assert digest.analysis is not None
    kept = [i.text for i in digest.analysis.summary]
    assert invented not in kept
    (entry,) = [d for d in digest.analysis.dropped if d.text == invented]
    assert entry.reasons[:2] == ["figure: 35%", "figure: 3 倍"]
    assert entry.reasons[-1].startswith("verifier contradicted")
    asked = model.verify_calls
    texts = [s["text"] for r in asked for s in verify_data(r)["sentences"]]
    assert invented in texts, texts


def test_rebuilds_and_commands_of_unchanged_data_make_no_new_call(
    model: FakeModel,
    llm_settings: Callable[..., Settings],
    caplog: pytest.LogCaptureFixture,
) -> None:
    model.always(GOOD["zh"])
    pipeline = wiring.build_pipeline(llm_settings(), sample=True)
    first = build_week(pipeline, REPO, WEEK)
    with caplog.at_level(logging.INFO, logger="service.pipeline.narrator"):
        second = build_week(pipeline, REPO, WEEK)
    assert len(model.calls) == 1
    # nothing the digest is built from changed: the stored digest stands, its narrative too
    assert second.analysis == first.analysis
    assert _model_log(caplog) == []
    # a new process (a fresh pipeline on the same database) serves it as well
    again = wiring.build_pipeline(llm_settings(), sample=True)
    assert build_week(again, REPO, WEEK).analysis == first.analysis
    # chat commands read the stored digest
    ctx = wiring.engine_context(llm_settings(), again)
    for text in ("pr 4280", "summary", "week", "risks"):
        answer_text(text, Caller(user_id="U1", platform="slack"), ctx)
    assert len(model.calls) == 1
    # the other language is another prompt: one call, then cached as well
    again.language = "en"
    model.always(GOOD["en"])
    english = build_week(again, REPO, WEEK)
    build_week(again, REPO, WEEK)
    assert english.analysis is not None
    assert english.analysis.language == "en"
    assert len(model.calls) == 2


def test_the_model_settings_take_part_in_whether_a_stored_digest_stands(
    llm_settings: Callable[..., Settings],
    model: FakeModel,
    caplog: pytest.LogCaptureFixture,
) -> None:
    model.always(GOOD["zh"])
    on = wiring.build_pipeline(llm_settings(), sample=True)
    narrated = build_week(on, REPO, WEEK)
    assert narrated.analysis is not None
    # --no-llm: built again, deterministic, and stored so
    off = wiring.build_pipeline(llm_settings(), sample=True, llm=False)
    assert build_week(off, REPO, WEEK).analysis is None
    stored = on.store.get_digest(REPO, period("2026-W04"), "zh")
    assert stored is not None
    assert stored.analysis is None
    # the model back on: built again, and the cached answer writes the narrative (no call)
    with caplog.at_level(logging.INFO, logger="service.pipeline.narrator"):
        back = build_week(on, REPO, WEEK)
    assert back.analysis == narrated.analysis
    assert [r.__dict__["cached"] for r in _model_log(caplog)] == [True]
    assert _model_log(caplog)[0].__dict__["usage"] == 0
    assert len(model.calls) == 1
    # another model: built again and asked (its own answer, its own cache entry)
    with serve_model(model="other-model-14b") as other:
        other.always(GOOD["zh"])
        other_settings = llm_settings(llm_base_url=other.url, llm_model="other-model-14b")
        switched = wiring.build_pipeline(other_settings, sample=True)
        digest = build_week(switched, REPO, WEEK)
        build_week(switched, REPO, WEEK)
        assert len(other.calls) == 1
    assert digest.analysis is not None
    assert digest.analysis.model == "other-model-14b"


def test_a_card_in_another_language_gets_the_narrative_in_its_own(
    llm_settings: Callable[..., Settings], model: FakeModel
) -> None:
    model.by_language(GOOD)
    with running_fake_slack() as slack, serve_feishu() as feishu:
        for channel in ("C_ZH", "C_EN", "C_EN2"):
            slack.add_channel(channel)
        settings = llm_settings(
            slack_bot_token=BOT_TOKEN,
            slack_api_url=slack.api_url,
            slack_channels="C_ZH,C_EN:en,C_EN2:en",
            feishu_app_id=feishu.app_id,
            feishu_app_secret=feishu.app_secret,
            feishu_base_url=feishu.url,
            feishu_chat_ids="oc_group1:en",
        )
        pipeline = wiring.build_pipeline(settings, sample=True)
        result = run_week(pipeline, REPO, WEEK, trigger="test")
        assert {o.action for o in result.outcomes} == {"posted"}
        regenerate(pipeline, REPO, period("2026-W04"), requested_by="U1")
        run_week(pipeline, REPO, WEEK, trigger="test")
        cards = {c: json.dumps(slack.messages(c), ensure_ascii=False) for c in ("C_ZH", "C_EN")}
        cards["oc_group1"] = json.dumps(
            [m.card for m in feishu.posted("oc_group1")], ensure_ascii=False
        )
        assert slack.violations == []
        assert feishu.violations == []
    # one call per language, never one per channel, and none on a regenerate of the same data
    assert sorted(model.languages_asked()) == ["en", "zh"]
    zh_headline = "本周主线是 rollout 架构的进程分离与新推理引擎接入"
    en_headline = json.loads(GOOD["en"])["headline"]["text"]
    assert zh_headline in cards["C_ZH"]
    assert en_headline not in cards["C_ZH"]
    for english in (cards["C_EN"], cards["oc_group1"]):
        assert en_headline in english
        assert zh_headline not in english
    stored = pipeline.store.get_digest(REPO, period("2026-W04"), "zh")
    assert stored is not None
    assert stored.analysis is not None
    assert stored.analysis.language == "zh"
    assert [a.language for a in stored.other_analyses] == ["en"]
    # the chat reads the stored digest: `pr N` in English carries the English point
    ctx = wiring.engine_context(settings, pipeline)
    from service.commands.parse import parse_command

    caller = Caller(user_id="U1", platform="slack")
    in_english = answer(parse_command("pr 4280 lang:en"), caller, ctx)
    assert isinstance(in_english, PrAnswer)
    assert in_english.point is not None
    assert in_english.point.text == json.loads(GOOD["en"])["pr_points"][0]["text"]
    assert len(model.calls) == 2


def test_posting_to_two_platforms_and_regenerating_unchanged_data_call_once(
    llm_settings: Callable[..., Settings], model: FakeModel
) -> None:
    model.always(GOOD["zh"])
    with running_fake_slack() as slack, serve_feishu() as feishu:
        slack.add_channel("C111")
        settings = llm_settings(
            slack_bot_token=BOT_TOKEN,
            slack_api_url=slack.api_url,
            slack_channels="C111",
            feishu_app_id=feishu.app_id,
            feishu_app_secret=feishu.app_secret,
            feishu_base_url=feishu.url,
            feishu_chat_ids="oc_group1",
        )
        pipeline = wiring.build_pipeline(settings, sample=True)
        result = run_week(pipeline, REPO, WEEK, trigger="test")
        assert {o.action for o in result.outcomes} == {"posted"}
        regenerate(pipeline, REPO, period("2026-W04"), requested_by="U1")
        posted = json.dumps(slack.messages("C111"), ensure_ascii=False)
        carded = json.dumps([m.card for m in feishu.posted("oc_group1")], ensure_ascii=False)
        assert slack.violations == []
        assert feishu.violations == []
    assert len(model.calls) == 1
    for payload in (posted, carded):
        assert "本周主线是 rollout 架构的进程分离与新推理引擎接入" in payload
        assert MODEL in payload


def test_an_invented_answer_posts_nothing_made_up_to_slack_or_feishu(
    llm_settings: Callable[..., Settings], model: FakeModel
) -> None:
    from tests.render.test_analysis import MADE_UP

    model.always(recorded_answer("2026-W04.bad.zh"))
    with running_fake_slack() as slack, serve_feishu() as feishu:
        slack.add_channel("C111")
        settings = llm_settings(
            slack_bot_token=BOT_TOKEN,
            slack_api_url=slack.api_url,
            slack_channels="C111",
            feishu_app_id=feishu.app_id,
            feishu_app_secret=feishu.app_secret,
            feishu_base_url=feishu.url,
            feishu_chat_ids="oc_group1",
            feishu_webhook_url=feishu.hook_url,
        )
        result = run_week(wiring.build_pipeline(settings, sample=True), REPO, WEEK, trigger="t")
        assert {o.action for o in result.outcomes} == {"posted"}
        sent = [
            json.dumps(slack.messages("C111"), ensure_ascii=False),
            json.dumps([m.card for m in feishu.posted("oc_group1")], ensure_ascii=False),
            json.dumps(feishu.hook_cards, ensure_ascii=False),
        ]
    for payload in sent:
        assert "训练与推理拆到不同进程" in payload  # #4280's point passed the checker
        for invented in MADE_UP:
            assert invented not in payload, invented


def _changed_week() -> CollectedPeriod:
    week = load_week("2026-W04")
    first = week.prs[0].model_copy(update={"title": week.prs[0].title + " (retitled)"})
    return week.model_copy(update={"prs": [first, *week.prs[1:]]})


def test_a_regenerate_after_new_data_calls_the_model_once(
    pipeline: Pipeline, model: FakeModel
) -> None:
    model.always(GOOD["zh"])
    build_week(pipeline, REPO, WEEK)
    changed = _changed_week()
    pipeline.collect = lambda _repo, _window: changed
    regenerate(pipeline, REPO, period("2026-W04"), requested_by="U1")
    regenerate(pipeline, REPO, period("2026-W04"), requested_by="U1")
    assert len(model.calls) == 2


def _fallback(
    pipeline: Pipeline, caplog: pytest.LogCaptureFixture
) -> tuple[Digest, list[logging.LogRecord], float]:
    started = time.monotonic()
    with caplog.at_level(logging.INFO, logger="service.pipeline.narrator"):
        digest = build_week(pipeline, REPO, WEEK)
    return digest, _model_log(caplog), time.monotonic() - started


@pytest.mark.parametrize(
    ("script", "why"),
    [
        (lambda m: m.answer('{"headline": {"text": "本周", "prs": []}, "summary": ['), "not JSON"),
        (lambda m: m.answer("当然！以下是本周周报：……"), "not JSON"),
        (lambda m: m.answer(json.dumps({"headline": {"text": "x", "prs": []}})), "missing summary"),
        (lambda m: m.fail(429, retry_after=0.2, times=100), "HTTP 429"),
        (lambda m: m.fail(500, times=100), "HTTP 500"),
        (lambda m: m.hang(times=10), "timed out"),
    ],
    ids=["truncated-json", "prose", "not-the-schema", "429", "500", "never-answers"],
)
def test_every_failure_leaves_the_deterministic_digest_with_one_log_line(
    llm_settings: Callable[..., Settings],
    model: FakeModel,
    caplog: pytest.LogCaptureFixture,
    script: Callable[[FakeModel], None],
    why: str,
) -> None:
    pipeline = wiring.build_pipeline(llm_settings(**HASTY), sample=True)
    script(model)
    digest, lines, seconds = _fallback(pipeline, caplog)
    assert digest.analysis is None
    plain = build_week(wiring.build_pipeline(llm_settings(), sample=True, llm=False), REPO, WEEK)
    same_time = digest.model_copy(update={"generated_at": plain.generated_at})
    assert render_markdown(same_time) == render_markdown(plain)
    stored = pipeline.store.get_digest(REPO, period("2026-W04"), "zh")
    assert stored is not None
    assert stored.analysis is None
    (line,) = lines
    assert line.levelno == logging.WARNING
    assert why in line.getMessage()
    assert "deterministic" in line.getMessage()
    # LLM_TIMEOUT_SECONDS=2 cut the call: a hung model never answers (until the test ends), so a
    # bound well short of that proves it without timing the machine's load
    assert seconds < 2 + 10


def test_a_failed_answer_is_not_cached_the_next_build_asks_again(
    pipeline: Pipeline, model: FakeModel
) -> None:
    model.answer("not json at all")
    model.answer(GOOD["zh"])
    assert build_week(pipeline, REPO, WEEK).analysis is None
    assert build_week(pipeline, REPO, WEEK).analysis is not None
    assert build_week(pipeline, REPO, WEEK).analysis is not None
    assert len(model.calls) == 2


def test_a_refused_key_is_logged_without_the_key(
    llm_settings: Callable[..., Settings], model: FakeModel, caplog: pytest.LogCaptureFixture
) -> None:
    wrong = "sk-not-the-right-key-0123456789"
    pipeline = wiring.build_pipeline(llm_settings(llm_api_key=wrong), sample=True)
    digest, lines, _ = _fallback(pipeline, caplog)
    assert digest.analysis is None
    assert "refused LLM_API_KEY (401)" in lines[0].getMessage()
    assert wrong not in caplog.text
    assert API_KEY not in caplog.text
    assert len(model.calls) == 1


def test_without_llm_settings_or_with_no_llm_nothing_is_asked(
    make_settings: Callable[..., Settings], llm_settings: Callable[..., Settings], model: FakeModel
) -> None:
    model.always(GOOD["zh"])
    plain = wiring.build_pipeline(make_settings(), sample=True)
    assert plain.narrator is None
    assert build_week(plain, REPO, WEEK).analysis is None
    off = wiring.build_pipeline(llm_settings(), sample=True, llm=False)
    assert off.narrator is None
    assert build_week(off, REPO, WEEK).analysis is None
    assert model.calls == []


def test_pr_answer_of_a_stored_digest_carries_no_new_call(
    pipeline: Pipeline, model: FakeModel, llm_settings: Callable[..., Settings]
) -> None:
    model.always(GOOD["zh"])
    build_week(pipeline, REPO, WEEK)
    ctx = wiring.engine_context(llm_settings(), pipeline)
    from service.commands.parse import parse_command

    reply = answer(parse_command("pr 4280"), Caller(user_id="U1", platform="slack"), ctx)
    assert isinstance(reply, PrAnswer)
    assert reply.pr is not None
    assert reply.point is not None
    assert reply.point.text == "训练与推理拆到不同进程，通过 CUDA IPC 与 ZeroMQ 同步权重。"
    assert reply.point_model == MODEL
    english = answer(parse_command("pr 4280 lang:en"), Caller(user_id="U1", platform="slack"), ctx)
    assert isinstance(english, PrAnswer)
    assert english.pr is not None
    assert english.point is None  # no card in English: the model wrote the week in zh only
    assert len(model.calls) == 1
