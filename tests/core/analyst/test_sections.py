"""The one rule for which text a report shows: the model's checked sentences when a section is
full enough, else the deterministic narrative."""

from __future__ import annotations

from service.core.analyst.checker import check_answer
from service.core.analyst.schema import Draft, parse_answer
from service.core.analyst.sections import MIN_KEPT, written
from service.core.models import Digest
from tests.core.analyst.helpers import week_digest, week_facts
from tests.fakes.openai import recorded_answer


def _with(drafts: list[Draft], lang: str = "zh") -> Digest:
    analysis = check_answer(drafts, week_facts(language=lang), model="m-1", prompt_version="1")
    return week_digest(language=lang).model_copy(update={"analysis": analysis})


def test_no_analysis_means_the_deterministic_text_everywhere() -> None:
    assert written(week_digest()) is None


def test_a_good_answer_writes_every_section_it_filled() -> None:
    view = written(_with(parse_answer(recorded_answer("2026-W04.good.zh"))))
    assert view is not None
    assert view.model == "m-1"
    assert view.sections == ["summary", "key_changes", "trends", "recommendations", "pr_points"]
    assert view.point(4280) is not None
    assert view.point(4632) is None
    assert view.kept == 1 + 5 + 5 + 2 + 2 + 6
    assert view.dropped == 0


def test_a_section_below_its_minimum_falls_back() -> None:
    one = [Draft("summary", "本周共合入 22 个 PR。"), Draft("trends", "新功能类 PR 共 7 个。")]
    view = written(_with(one))
    assert MIN_KEPT["summary"] == 2
    assert view is not None
    assert view.summary == []
    assert len(view.trends) == 1
    assert view.sections == ["trends"]


def test_a_section_mostly_dropped_falls_back_even_with_enough_kept() -> None:
    drafts = [Draft("summary", "本周共合入 22 个 PR。"), Draft("summary", "来自 20 位贡献者。")]
    drafts += [Draft("summary", f"#9999 修复了第 {i} 个问题。", (9999,)) for i in range(3)]
    view = written(_with(drafts))
    assert view is None  # two kept, three dropped: the deterministic summary is shown


def test_the_headline_and_points_stand_on_their_own() -> None:
    drafts = [
        Draft("headline", "本周主线是 rollout 架构的进程分离", (4280,)),
        Draft("pr_points", "训练与推理拆到不同进程。", (4280,)),
    ]
    view = written(_with(drafts))
    assert view is not None
    assert view.headline is not None
    assert view.headline.text == "本周主线是 rollout 架构的进程分离"
    # the rule-written sections, the table and the risk item name #4280 five times already:
    # the headline is still shown, whole (a mention limit drops repeats, never a kept sentence)
    assert view.headline.prs == [4280]
    assert list(view.points) == [4280]
    assert view.sections == ["summary", "pr_points"]


def test_a_filtered_digest_keeps_only_the_points_of_its_prs() -> None:
    from service.core.filters import DigestFilter, narrow_digest

    whole = _with(parse_answer(recorded_answer("2026-W04.good.zh")))
    narrowed = narrow_digest(whole, DigestFilter(modules=("megatron",)))
    assert narrowed.filter
    view = written(narrowed)
    assert view is not None
    assert view.headline is None
    assert view.summary == view.key_changes == view.trends == view.recommendations == []
    assert sorted(view.points) == [4931, 4936]  # megatron PRs the model wrote a point for
    assert view.sections == ["pr_points"]


def test_every_kept_sentence_is_shown_whatever_the_mention_count() -> None:
    """Issue 27 §2: the two best recommendations of a week, a migration note for a moved
    package, were in no report because they named a PR the report had named five times."""
    texts = ["#4280 涉及 37 个文件。", "#4280 重构了 rollout。", "#4280 使用 ZeroMQ。"]
    texts += ["#4280 使用 CUDA IPC。", "#4280 修改了 vLLM rollout。"]
    drafts = [Draft("summary", text, (4280,)) for text in texts]
    advice = "升级前请核对 #4280 的 vLLM rollout 配置。"
    drafts.append(Draft("recommendations", advice, (4280,)))
    drafts.append(Draft("trends", "rollout 模块本周有 5 个 PR。", (4280, 4665, 4191)))
    digest = _with(drafts)
    view = written(digest)
    assert view is not None
    assert [i.text for i in view.summary] == texts
    assert [i.text for i in view.recommendations] == [advice]
    (trend,) = view.trends
    assert trend.text == "rollout 模块本周有 5 个 PR。"
    assert view.sections == ["summary", "trends", "recommendations"]


def test_a_kept_sentence_is_shown_once() -> None:
    said = "#4885 新增 HCCL 检查点引擎后端。"
    drafts = [Draft("summary", said, (4885,)), Draft("summary", "本周共合入 22 个 PR。")]
    drafts += [Draft("recommendations", said, (4885,)), Draft("pr_points", said, (4885,))]
    drafts.append(Draft("recommendations", "升级前请核对 #4280 的 vLLM rollout 配置。", (4280,)))
    view = written(_with(drafts))
    assert view is not None
    shown = [i.text for i in (*view.summary, *view.recommendations, *view.points.values())]
    assert shown.count(said) == 1
