"""The verification pass by a model (issue 26 §3) through the real pipeline (wiring, store,
jobs) against the fake OpenAI-compatible server: only sentences the verifier judged entailed
stay, the others join the audit list with its reason; its verdicts are cached with the answer;
a verifier that times out, fails or answers junk drops nothing and says so in the log and the
audit list, and the digest still posts."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from service import wiring
from service.core.analyst.verdicts import NOTE_SECTION
from service.core.models import Analysis
from service.core.weeks import window_for
from service.pipeline.jobs import Pipeline, build_week, run_week
from service.render.report import render_markdown
from service.settings import Settings
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
VERDICTS = {lang: recorded_answer(f"2026-W04.verdicts.{lang}") for lang in ("zh", "en")}
# the sentence the recorded verdicts contradict, and the one they find no information for
CONTRADICTED = "#4665 接入 TensorRT-LLM 作为新的 rollout 引擎，新增 1676 行。"
UNSUPPORTED = "为 #4931、#4936、#5033 补充测试：它们修改了核心路径但没有改动测试。"


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
            # generous: the fake answers at once, but a loaded CI machine spent 2 s on the
            # whole verification pass before its answer was read
            "llm_timeout_seconds": 30,
            "llm_verify_timeout_seconds": 30,
        }
        return make_settings(**{**values, **overrides})

    return build


@pytest.fixture
def pipeline(llm_settings: Callable[..., Settings]) -> Pipeline:
    return wiring.build_pipeline(llm_settings(), sample=True)


def _analysis(pipeline: Pipeline) -> Analysis:
    digest = build_week(pipeline, REPO, WEEK)
    assert digest.analysis is not None
    return digest.analysis


def _texts(analysis: Analysis) -> list[str]:
    items = [analysis.headline] if analysis.headline else []
    for section in ("summary", "key_changes", "pr_points", "trends", "recommendations"):
        items += getattr(analysis, section)
    return [item.text for item in items if item is not None]


def _unverified(llm_settings: Callable[..., Settings], model: FakeModel) -> Analysis:
    """The same answer through the rules alone (LLM_VERIFY_ENABLED=false)."""
    model.answer(GOOD["zh"])
    off = wiring.build_pipeline(llm_settings(llm_verify_enabled=False), sample=True)
    return _analysis(off)


def test_a_verifier_that_entails_every_sentence_keeps_what_the_rules_kept(
    pipeline: Pipeline, model: FakeModel, llm_settings: Callable[..., Settings]
) -> None:
    model.answer(GOOD["zh"])
    analysis = _analysis(pipeline)
    assert len(model.verify_calls) == 1
    assert analysis.dropped == []
    sent = model.verify_calls[0].json()
    assert sent["response_format"]["json_schema"]["name"] == "sentence_verdicts"
    assert sent["response_format"]["json_schema"]["strict"] is True
    assert sent["max_tokens"] == 2000
    data = sent["messages"][1]["content"]
    assert "本周主线是 rollout 架构的进程分离与新推理引擎接入" in data  # the sentences
    assert '"number":4280' in data  # the cited PRs' facts
    assert '"totals"' in data  # the week's figures, for the sentences on the whole week
    plain = _unverified(llm_settings, model)
    assert _texts(analysis) == _texts(plain)


def test_the_answers_quotes_go_to_the_verifier_with_their_sentence(
    pipeline: Pipeline, model: FakeModel
) -> None:
    answer = json.loads(GOOD["zh"])
    quote = "implement vLLM colocated training-inference rollout with process separation"
    answer["summary"][1]["evidence"] = [{"pr": 4280, "quote": quote}]
    model.answer(json.dumps(answer, ensure_ascii=False))
    _analysis(pipeline)
    data = verify_data(model.verify_calls[0])
    quoted = [s for s in data["sentences"] if s["quotes"]]
    assert [s["text"] for s in quoted] == [answer["summary"][1]["text"]]
    assert quoted[0]["quotes"] == [{"pr": 4280, "quote": quote, "found": "what the PR says"}]


def test_only_entailed_sentences_stay_the_others_join_the_audit_list(
    pipeline: Pipeline, model: FakeModel
) -> None:
    model.answer(GOOD["zh"])
    model.recorded_verdicts = VERDICTS
    analysis = _analysis(pipeline)
    texts = _texts(analysis)
    assert CONTRADICTED not in texts
    assert UNSUPPORTED not in texts
    assert "本周共合入 22 个 PR，新增 5614 行、删除 1250 行，来自 20 位贡献者。" in texts
    dropped = {d.text: d.reasons for d in analysis.dropped}
    assert dropped[CONTRADICTED][0].startswith("verifier contradicted: ")
    assert dropped[UNSUPPORTED][0].startswith("verifier not_enough_information: ")
    assert len(analysis.dropped) == 2


def test_a_contradicted_headline_and_key_change_are_dropped_with_the_reason(
    pipeline: Pipeline, model: FakeModel
) -> None:
    def judge(sentence: dict[str, Any]) -> tuple[str, str]:
        if sentence["id"] == 1 or sentence["text"].startswith("Rollout 架构"):
            return "contradicted", "the PR says otherwise"
        return "entailed", "stated"

    model.answer(GOOD["zh"])
    model.judge = judge
    analysis = _analysis(pipeline)
    assert analysis.headline is None
    assert all(not item.text.startswith("#4280 把") for item in analysis.key_changes)
    assert [d.section for d in analysis.dropped] == ["headline", "key_changes"]
    assert analysis.dropped[1].text.startswith("Rollout 架构: #4280")


@pytest.mark.parametrize(
    ("script", "why"),
    [
        (lambda m: m.verdict("当然，以下是结论：全部正确"), "not JSON for the schema"),
        (lambda m: m.verdict(json.dumps({"verdicts": [{"id": 1}]})), "not JSON for the schema"),
        (lambda m: m.verdict("[" * 100_000), "not JSON for the schema"),
        (lambda m: m.verdict_fail(500, times=100), "HTTP 500"),
        (lambda m: m.verdict_hang(times=10), "LLM_VERIFY_TIMEOUT_SECONDS=1"),
    ],
    ids=["prose", "no-verdict", "nested", "500", "never-answers"],
)
def test_a_failing_verifier_drops_nothing_and_says_so(
    llm_settings: Callable[..., Settings],
    model: FakeModel,
    caplog: pytest.LogCaptureFixture,
    script: Callable[[FakeModel], None],
    why: str,
) -> None:
    # 1 s bounds the hung verifier; the others answer at once, but a loaded machine may take
    # more than 1 s to get there (and then the note names the timeout, not their failure)
    timeout = 1 if "TIMEOUT" in why else 20
    settings = llm_settings(llm_verify_timeout_seconds=timeout)
    pipeline = wiring.build_pipeline(settings, sample=True)
    model.answer(GOOD["zh"])
    script(model)
    with caplog.at_level(logging.INFO, logger="service.pipeline.verifier"):
        digest = build_week(pipeline, REPO, WEEK)
    analysis = digest.analysis
    assert analysis is not None
    # the report counts no dropped sentence: the note is not one
    assert "并全部通过" in render_markdown(digest)
    plain = _unverified(llm_settings, model)
    assert _texts(analysis) == _texts(plain)
    (note,) = analysis.dropped
    assert note.section == NOTE_SECTION
    assert "21 sentences kept without a verdict" in note.text
    assert why in note.reasons[0]
    warning = next(r for r in caplog.records if r.levelno == logging.WARNING)
    assert why in warning.getMessage()
    assert "21 sentences kept without a verdict" in warning.getMessage()
    line = next(r for r in caplog.records if r.getMessage() == "model verification")
    assert line.__dict__["unjudged"] == 21


def test_a_verdict_left_out_keeps_its_sentence(pipeline: Pipeline, model: FakeModel) -> None:
    verdicts = json.loads(VERDICTS["zh"])
    verdicts["verdicts"] = [v for v in verdicts["verdicts"] if v["id"] != 4]
    verdicts["verdicts"].append({"id": 99, "verdict": "contradicted", "reason": "not asked"})
    model.answer(GOOD["zh"])
    model.verdict(json.dumps(verdicts, ensure_ascii=False))
    analysis = _analysis(pipeline)
    assert CONTRADICTED in _texts(analysis)
    assert [d.text for d in analysis.dropped[:-1]] == [UNSUPPORTED]
    note = analysis.dropped[-1]
    assert note.section == NOTE_SECTION
    assert note.reasons == ["verifier_failed: no verdict on 1 of 21 sentences"]


def test_verdicts_are_cached_with_the_answer_and_asked_again_when_either_changes(
    llm_settings: Callable[..., Settings], model: FakeModel
) -> None:
    model.always(GOOD["zh"])
    model.recorded_verdicts = VERDICTS
    on = wiring.build_pipeline(llm_settings(), sample=True)
    first = _analysis(on)
    # the model off then on: built again, the answer and its verdicts from the cache
    build_week(wiring.build_pipeline(llm_settings(), sample=True, llm=False), REPO, WEEK)
    assert _analysis(on) == first
    assert (len(model.calls), len(model.verify_calls)) == (1, 1)
    # another verifier model: built again, the narrative from the cache, the verdicts asked
    with serve_model(model="judge-model-72b") as judge:
        judge.recorded_verdicts = VERDICTS
        other = llm_settings(llm_verify_base_url=judge.url, llm_verify_model="judge-model-72b")
        again = _analysis(wiring.build_pipeline(other, sample=True))
        assert len(judge.verify_calls) == 1
        assert judge.calls == []
    assert again.dropped == first.dropped
    assert (len(model.calls), len(model.verify_calls)) == (1, 1)
    # a changed answer (another writing model, the same verifier): its sentences asked again
    changed = json.loads(GOOD["zh"])
    changed["summary"][0]["text"] = "本周共合入 22 个 PR。"
    with serve_model(model="writer-14b") as writer:
        writer.always(json.dumps(changed, ensure_ascii=False))
        other = llm_settings(
            llm_base_url=writer.url,
            llm_model="writer-14b",
            llm_verify_base_url=model.url,
            llm_verify_model=MODEL,
        )
        rewritten = _analysis(wiring.build_pipeline(other, sample=True))
        assert len(writer.calls) == 1
    assert "本周共合入 22 个 PR。" in _texts(rewritten)
    assert (len(model.calls), len(model.verify_calls)) == (1, 2)


def test_the_verifier_off_asks_nothing(
    llm_settings: Callable[..., Settings], model: FakeModel
) -> None:
    pipeline = wiring.build_pipeline(llm_settings(llm_verify_enabled=False), sample=True)
    assert pipeline.narrator is not None
    assert pipeline.narrator.verifier is None
    model.answer(GOOD["zh"])
    _analysis(pipeline)
    assert model.verify_calls == []


def test_the_week_still_posts_when_the_verifier_fails(
    llm_settings: Callable[..., Settings], model: FakeModel
) -> None:
    model.always(GOOD["zh"])
    model.verdict_fail(503, times=100)
    with running_fake_slack() as slack:
        slack.add_channel("C111")
        settings = llm_settings(
            slack_bot_token=BOT_TOKEN, slack_api_url=slack.api_url, slack_channels="C111"
        )
        result = run_week(wiring.build_pipeline(settings, sample=True), REPO, WEEK, trigger="t")
        posted = json.dumps(slack.messages("C111"), ensure_ascii=False)
        assert slack.violations == []
    assert {o.action for o in result.outcomes} == {"posted"}
    assert "本周主线是 rollout 架构的进程分离与新推理引擎接入" in posted
    assert model.verify_calls


def test_a_broken_answer_is_a_dropped_narrative_and_the_week_still_posts(
    llm_settings: Callable[..., Settings], model: FakeModel
) -> None:
    model.always("[" * 100_000)
    with running_fake_slack() as slack:
        slack.add_channel("C111")
        settings = llm_settings(
            slack_bot_token=BOT_TOKEN, slack_api_url=slack.api_url, slack_channels="C111"
        )
        pipeline = wiring.build_pipeline(settings, sample=True)
        result = run_week(pipeline, REPO, WEEK, trigger="t")
        assert slack.messages("C111")
    assert {o.action for o in result.outcomes} == {"posted"}
    stored = pipeline.store.get_digest(REPO, period("2026-W04"), "zh")
    assert stored is not None
    assert stored.analysis is None
    assert model.verify_calls == []
