"""Contradictions the rules asserted on true sentences of the model corpus (issue 26,
checker38b): each test replays a true sentence of a tunable part, with its evidence, through
the checker, and shows the rule reads the structure it names (a relation, a comparison's
bucket, a file's value, a default, a failure) instead of a word, while the false sentence
beside it is still caught."""

from __future__ import annotations

import json

from service.core.analyst import claims
from service.core.analyst.checker import check_answer
from service.core.analyst.deferral import deferrable
from service.core.analyst.facts import PeriodFacts
from service.core.analyst.schema import Draft, parse_answer
from service.core.models import Analysis
from tests.core.analyst.model_corpus import CORPUS, facts_for


def _facts(part: str, week: str, language: str) -> PeriodFacts:
    meta = json.loads((CORPUS / part / "weeks.json").read_text("utf-8"))[week]
    facts: PeriodFacts = facts_for({"week": week, **meta}, language)
    return facts


def _draft(part: str, stem: str, starts: str) -> Draft:
    """The draft of `part`'s answer `stem` whose text starts with `starts`, as parsed."""
    answer = (CORPUS / part / f"{stem}.answer.json").read_text("utf-8")
    (found,) = [d for d in parse_answer(answer) if d.text.startswith(starts)]
    return found


def _checked(part: str, stem: str, starts: str) -> tuple[Draft, Analysis]:
    week, language = stem.split(".")[:2]
    draft = _draft(part, stem, starts)
    facts = _facts(part, week, language)
    return draft, check_answer([draft], facts, model="m", prompt_version="p")


def _kept(analysis: Analysis, draft: Draft) -> bool:
    items = getattr(analysis, draft.section)
    return any(" ".join(i.text.split()) == " ".join(draft.text.split()) for i in items)


def test_two_prs_joined_before_a_noun_tell_no_relation_between_them() -> None:
    # "为 #4352 与 #4211 的破坏性重构补充迁移说明": the refactors of both, not "#4352 breaks #4211"
    draft, checked = _checked("seen3", "2025-W48.zh", "建议为 #4352 与 #4211")
    assert checked.dropped == []
    assert _kept(checked, draft)


def test_a_relation_word_in_another_clause_is_not_said_of_the_pr() -> None:
    # "…#6350 对 … 的修复不再生效，被标为需跟进的中等风险": the risk needs a follow-up
    draft, checked = _checked("seen3", "2026-W20.zh", "该撤销使 #6350")
    assert not any(r.startswith("relation") for d in checked.dropped for r in d.reasons)
    assert _kept(checked, draft)


def test_a_subset_clause_belongs_to_the_bucket_compared_before() -> None:
    # "doc 模块从上一周的 4 个增至 12 个，其中多数是昇腾文档": the doc module, 4 → 12; the
    # docs category (3 vs 4) is not what "其中多数" compares
    draft, checked = _checked("seen3", "2026-W20.zh.adversarial", "doc 模块从上一周")
    assert not any(r.startswith("comparison") for d in checked.dropped for r in d.reasons)
    assert _kept(checked, draft)


def test_a_commit_hash_is_no_figure() -> None:
    assert [f.text for f in claims.figures("把依赖从 git 提交 68c04e7 换成 0.1.2")] == ["0.1.2"]
    assert [f.text for f in claims.figures("1234567 lines")] == ["1234567"]
    draft, checked = _checked("seen3", "2025-W48.zh.adversarial", "data 模块由上一周")
    assert not any("68" in r for d in checked.dropped for r in d.reasons)
    assert _kept(checked, draft)


def test_a_concept_word_inside_another_word_is_not_named() -> None:
    # 不同卡数 (different card counts) is not 同卡 (colocated); 向量化 is not 量化
    draft, checked = _checked("tune2", "2026-W19.zh", "借助 `tests/utils/gpu_test_topology.py`")
    assert _kept(checked, draft)
    draft, checked = _checked("seen3", "2026-W20.zh.adversarial", "#6348 把向量化 GRPO")
    assert _kept(checked, draft)


def test_an_uninstall_command_is_no_offload() -> None:
    draft, checked = _checked("seen3", "2025-W48.zh", "ci 方面有多项 Ascend 平台修复")
    assert _kept(checked, draft)


def test_a_file_value_is_read_per_clause() -> None:
    # "setup.py caps vllm at <=0.20.0 while the install docs use vllm==0.20.2": the 0.20.2 is
    # the docs', not setup.py's
    draft, checked = _checked(
        "tune2", "2026-W21.en.adversarial", "Because setup.py in #78 caps vllm"
    )
    assert not any(r.startswith("file value") for d in checked.dropped for r in d.reasons)
    assert _kept(checked, draft)


def test_an_old_value_moved_from_another_file_is_left_to_the_verifier() -> None:
    # "Bumps TransferQueue from 0.1.6 to 0.1.7 in requirements.txt": 0.1.7 is requirements.txt's,
    # 0.1.6 stood in setup.py: not found there, not contradicted
    _, checked = _checked("seen3", "2026-W21.en", "Bumps TransferQueue from 0.1.6")
    (dropped,) = checked.dropped
    assert dropped.reasons == [
        "file value 0.1.6: not found on changed lines of requirements.txt (on setup.py)"
    ]
    assert deferrable(dropped.reasons)


def test_a_failure_the_prs_own_body_reports_stands() -> None:
    draft, checked = _checked("seen3", "2026-W21.en", "Adds TLLM_DISABLE_NVLS_MNNVL")
    assert _kept(checked, draft)


def test_a_conditional_failure_and_a_raise_are_no_failure_of_the_pr() -> None:
    # "失败不阻塞 PR" (continue-on-error) and "收到音频输入时显式报错" (a raise the PR adds)
    draft, checked = _checked("tune2", "2026-W19.zh.adversarial", "`gpu_smoke_verl_latest.yml`")
    assert not any(r.startswith("failure") for d in checked.dropped for r in d.reasons)
    draft, checked = _checked("seen3", "2026-W20.zh.adversarial", "#6276 在 legacy_data.yaml")
    assert _kept(checked, draft)


def test_defaults_that_are_advice_a_thing_named_or_an_old_value() -> None:
    draft, checked = _checked("seen3", "2025-W48.zh.adversarial", "#4211 新增的 `run_qwen30b")
    assert _kept(checked, draft)  # "建议改为显式参数或提供默认值": advice
    draft, checked = _checked("tune2", "2026-W21.en.adversarial", "`get_collate_fn` raises")
    assert _kept(checked, draft)  # "the upstream default collate function"
    draft, checked = _checked("seen3", "2026-W03.en.adversarial", "#4544 drops the per-token")
    assert _kept(checked, draft)  # "used to default to 1e-4": on a removed line


def test_a_default_told_as_the_alternative_value_is_still_caught() -> None:
    # seen3 2026-W03 en adversarial, labelled false: every false sentence of the week stays out
    week, language = "2026-W03", "en"
    facts = _facts("seen3", week, language)
    labels = json.loads(
        (CORPUS / "seen3" / f"{week}.{language}.adversarial.labels.json").read_text("utf-8")
    )
    false = {" ".join(s["text"].split()) for s in labels["sentences"] if s["label"] != "true"}
    answer = (CORPUS / "seen3" / f"{week}.{language}.adversarial.answer.json").read_text("utf-8")
    drafts = [d for d in parse_answer(answer) if " ".join(d.text.split()) in false]
    defaults = [d for d in drafts if "default" in d.text]
    assert defaults
    for draft in defaults:
        checked = check_answer([draft], facts, model="m", prompt_version="p")
        assert not _kept(checked, draft), draft.text
