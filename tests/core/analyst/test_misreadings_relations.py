"""Relations between PRs, universal claims, actions and counts (seen4 misreadings): each test
builds small PR data by hand and shows the rule keeps the true sentence for the structure it
names (a relation the digest found, a count of files, a failure handled, a review the body
tells, the earlier week's figure) while the false variant beside it is still dropped."""

from __future__ import annotations

from service.core.analyst import quoted
from service.core.analyst.checker import Checker, Claim, _pr_rule
from service.core.analyst.evidence import PeriodEvidence, PREvidence, Relation
from service.core.analyst.facts import PeriodFacts, PRFacts
from service.core.analyst.glossary import glossary
from service.core.analyst.grounding import Segment, action_reasons, failure_reasons
from service.core.analyst.merged_names import existing_reasons
from service.core.analyst.quotes import Quote
from service.core.analyst.sentence_claims import (
    absence_reasons,
    comparison_reasons,
    relation_reasons,
    speed_reasons,
)


def _evidence(*prs: PREvidence, relations: tuple[Relation, ...] = ()) -> PeriodEvidence:
    evidence = PeriodEvidence(relations=relations)
    evidence._cache.update({e.number: e for e in prs})
    return evidence


def _pr(number: int, text: str = "", **fields: object) -> PREvidence:
    return PREvidence(number=number, text=text.lower(), **fields)  # type: ignore[arg-type]


# --- relations ---------------------------------------------------------------------------

SUPERSEDES = (Relation(79, 55, "supersedes"),)


def test_a_rewrite_the_digest_found_is_kept_and_one_it_did_not_is_dropped() -> None:
    evidence = _evidence(_pr(55), _pr(79), _pr(58), relations=SUPERSEDES)
    text = "#55 adds a recipe, and #79, which supersedes lines from #55, raises the lr."
    assert relation_reasons(text, [55, 79], evidence) == []
    wrong = "#58 adds a scheduler, and #79, which supersedes lines from #58, raises the lr."
    assert relation_reasons(wrong, [58, 79], evidence) == ["relation: #79 supersedes #58"]


def test_a_chinese_rewrite_is_read_the_way_the_relation_runs() -> None:
    evidence = _evidence(_pr(5018), _pr(4280), relations=(Relation(4280, 5018, "supersedes"),))
    assert (
        relation_reasons("#4280 替换了 #5018 仅在为 None 时赋值的判断。", [4280, 5018], evidence)
        == []
    )
    assert relation_reasons("#4280 改写了 #5018 新增的行。", [4280, 5018], evidence) == []
    # the other way round: #5018 rewrites nothing of #4280
    assert relation_reasons("#5018 替换了 #4280 的判断。", [4280, 5018], evidence) == [
        "relation: #5018 替换了 #4280"
    ]


def test_a_rework_of_an_earlier_weeks_pr_grounds_a_rewrite() -> None:
    evidence = _evidence(_pr(4976), relations=(Relation(4976, 4956, "fix_same_code"),))
    assert relation_reasons("#4976 rewrites code #4956 added.", [4976], evidence) == []
    assert relation_reasons("#4976 breaks #4956.", [4976], evidence) == [
        "relation: #4976 breaks #4956"
    ]


def test_its_follow_up_in_brackets_is_the_later_pr() -> None:
    later = _pr(4222, "support moe. this is a follow-up to #3519. please refer to that pr")
    evidence = _evidence(_pr(3519), later)
    text = "Blockwise FP8 rollout (#3519), its MoE follow-up for vLLM v0.11.0 (#4222), landed."
    assert relation_reasons(text, [3519, 4222], evidence) == []
    wrong = "MoE support (#4222), its blockwise FP8 follow-up for vLLM (#3519), landed."
    assert relation_reasons(wrong, [3519, 4222], evidence) != []


def test_a_relation_said_of_a_clause_with_its_own_subject_is_not_the_prs() -> None:
    # #4258 reverts an earlier week's PR, not #4282
    evidence = _evidence(_pr(4282), _pr(4258), relations=(Relation(4258, 4200, "revert"),))
    text = "Track #4282, as the earlier split features were reverted this week by #4258."
    assert relation_reasons(text, [4282, 4258], evidence) == []
    wrong = "Track #4282, which was reverted this week by #4258."
    assert relation_reasons(wrong, [4282, 4258], evidence) == ["relation: #4258 reverted #4282"]


def test_an_unnamed_earlier_pr_needs_a_relation_of_a_cited_one() -> None:
    text = "It fixes an epoch-resume bug introduced by an earlier PR that moved the loader."
    assert relation_reasons(text, [4156], _evidence(_pr(4156))) == [
        "relation: an earlier PR (no earlier PR of a cited one was found)"
    ]
    found = _evidence(_pr(4156), relations=(Relation(4156, 4100, "fix_same_code"),))
    assert relation_reasons(text, [4156], found) == []


# --- actions -----------------------------------------------------------------------------


def _actions(text: str, pr: PREvidence, evidence: PeriodEvidence | None = None) -> list[str]:
    evidence = evidence or _evidence(pr)
    return action_reasons(Segment(text, (pr,)), glossary(), evidence)


def test_the_lines_a_pr_added_are_what_its_diff_adds() -> None:
    added = _pr(5018, "fix: set default max_model_len", changed=((), ("if x is none:",)))
    assert _actions(" 新增的行。", added) == []
    nothing = _pr(5018, "fix: set default max_model_len", changed=(("if x is none:",), ()))
    assert _actions(" 新增的行。", nothing) == ["action: 新增 (#5018 adds no line)"]


def test_a_thing_added_earlier_needs_an_earlier_pr_the_cited_one_reworks() -> None:
    pr = _pr(4976, "fix: num_preempted metrics", changed=(("num_preempted = 0",), ()))
    text = " 改写了此前新增 num_preempted 指标的代码。"
    assert _actions(text, pr) == ["action: 新增 (no earlier PR it reworks was found)"]
    reworks = _evidence(pr, relations=(Relation(4976, 4956, "fix_same_code"),))
    assert _actions(text, pr, reworks) == []
    # told as added before, it is no name the PR told as new
    assert existing_reasons("#4976 改写了此前新增 num_preempted 的代码", [4976], reworks) == []


def test_a_name_told_as_re_added_that_a_removed_line_defines_is_dropped() -> None:
    pr = _pr(363, "adapt rollout", changed=(("custom_output = {",), ("x = 1",)))
    evidence = _evidence(pr)
    reasons = existing_reasons("#363 让输出重新加入 custom_output 字段。", [363], evidence)
    assert len(reasons) == 1
    assert reasons[0].startswith("not new: `custom_output`")
    kept = _pr(363, "adapt rollout", changed=(("x = 1",), ("custom_output: dict = None",)))
    assert (
        existing_reasons("#363 re-adds custom_output to the output.", [363], _evidence(kept)) == []
    )


def test_a_fallback_is_no_revert() -> None:
    pr = _pr(398, "nightly requires fa3", changed=(("attn_backend=native",), ("exit 1",)))
    assert _actions(" 让 nightly 强制使用 FA3，不再回退到 native 与 TORCH_SDPA。", pr) == []
    assert _actions(" 回退了 FA3 的改动。", pr) != []


def test_restoring_a_state_is_what_a_fix_does() -> None:
    fix = _pr(4156, "fix: resume from the correct epoch", actions=frozenset({"fix"}))
    assert _actions(" now restores the correct epoch on resume.", fix) == []
    feature = _pr(4157, "feat: a new sampler")
    assert _actions(" now restores the correct epoch on resume.", feature) != []


# --- failures ----------------------------------------------------------------------------


def _failures(text: str, pr: PREvidence) -> list[str]:
    return failure_reasons(Segment(text, (pr,)), _evidence(pr))


def test_a_failure_handled_is_no_failure_of_the_pr() -> None:
    pr = _pr(4182, "feat: react agent loop")
    text = " On a failed LangGraph invocation the loop now falls back to a dummy message."
    assert _failures(text, pr) == []
    assert _failures(" The LangGraph invocation failed after this change.", pr) == [
        "failure: failed"
    ]


def test_an_oom_the_fix_targets_is_the_fixed_failure() -> None:
    fix = _pr(85, "fix: fix oom during checkpointing", actions=frozenset({"fix"}))
    assert _failures(" targets OOM during checkpointing by calling gc.collect().", fix) == []
    assert _failures(" causes OOM during checkpointing.", fix) == ["failure: OOM"]


def test_a_failure_named_by_its_fix_is_fixed() -> None:
    fix = _pr(85, "fix: fix oom during checkpointing", actions=frozenset({"fix"}))
    assert _failures("Checkpoint OOM fix", fix) == []
    feature = _pr(86, "feat: checkpoint offload", actions=frozenset({"add"}))
    assert _failures("Checkpoint OOM fix", feature) == ["failure: OOM"]


# --- universal claims --------------------------------------------------------------------

FAPO = tuple(
    (f"recipe/fapo/run_{n}.sh", ("-path=a",), ("+path=b",))
    for n in ("baseline_32b", "baseline_7b", "fapo_32b", "fapo_7b")
)


def test_all_of_a_count_of_files_the_pr_changes_is_kept() -> None:
    pr = _pr(4195, "fix: incorrect reward function in fapo scripts", files=FAPO)
    text = "All four fapo scripts now point the path at reward_fn_reasoning.py."
    assert absence_reasons(text, "", [4195], pr.text, prs=[pr]) == []
    wrong = "All five fapo scripts now point the path at reward_fn_reasoning.py."
    assert absence_reasons(wrong, "", [4195], pr.text, prs=[pr]) == ["universal: All"]


def test_all_of_the_prs_listed_before_it_each_touching_the_file() -> None:
    def ci(number: int, path: str) -> PREvidence:
        return _pr(number, "ci", paths=f"{path}\n")

    prs = [
        ci(3465, ".github/workflows/e2e_ascend.yml"),
        ci(4146, ".github/workflows/e2e_ascend.yml"),
    ]
    text = "CI work concentrated on e2e_ascend.yml, which #3465 and #4146 all modified."
    assert absence_reasons(text, "", [3465, 4146], "", prs=prs) == []
    other = [prs[0], ci(4146, ".github/workflows/e2e_gpu.yml")]
    assert absence_reasons(text, "", [3465, 4146], "", prs=other) == ["universal: all"]


def test_a_universal_with_the_word_before_it_in_the_prs_words() -> None:
    said = "set to null (default) to trace all samples."
    text = "The option is null by default to trace all samples."
    assert absence_reasons(text, "", [4185], said) == []
    assert absence_reasons("The option now logs all samples.", "", [4185], said) == [
        "universal: all"
    ]


# --- review notes ------------------------------------------------------------------------


def _review_rule(quotes: tuple[Quote, ...]) -> list[str]:
    pr = PRFacts(383, "[reward] feat: t2av recipe")
    days = ("2026-08-17", "2026-08-23")
    facts = PeriodFacts("o/r", "2026-W34", "zh", *days, {}, {}, (), (pr,), by_number={383: pr})
    claim = Claim("#383 正文提到有评审者反对注入模块。", (383,), (pr,), "review_notes", quotes)
    return _pr_rule(claim, Checker(facts))


def test_a_review_the_prs_body_tells_grounds_a_review_note() -> None:
    told = Quote(383, "a reviewer objected to injecting a module into", where="body")
    assert _review_rule((told,)) == []
    plain = Quote(383, "drop the ImageBind torchvision shim", where="body")
    assert _review_rule((plain,)) == ["no_review: #383"]


# --- comparisons and magnitudes ----------------------------------------------------------

TOTALS = {"risk_findings": 3, "risk_findings_medium": 1}
EARLIER = {"risk_findings": 3, "risk_findings_medium": 2}


def test_a_comparison_with_the_earlier_week_named_by_its_label() -> None:
    evidence = PeriodEvidence(previous_period="2026-W19")
    wrong = "Medium-severity risk findings rose to 1 this week from 0 in 2026-W19."
    assert comparison_reasons(wrong, evidence, TOTALS, EARLIER) == [
        "comparison: risk_findings_medium 1 vs 2 2026-W19"
    ]
    true = "Medium-severity risk findings fell to 1 this week from 2 in 2026-W19."
    assert comparison_reasons(true, evidence, TOTALS, EARLIER) == []
    # the label alone compares nothing
    assert comparison_reasons("#58 follows #40, merged in 2026-W19.", evidence) == []


def test_a_halving_in_words_needs_a_multiplier_the_quotes_state() -> None:
    reasons = ["figure: 缩短一半"]
    size = quoted.quoted((Quote(4280, "- CUDA IPC bucket_size: 2GB", where="body"),))
    assert quoted.settled(reasons, size, []) == reasons
    ratio = quoted.quoted((Quote(4280, "weight sync is 2x faster", where="body"),))
    assert quoted.settled(reasons, ratio, []) == []


def test_both_totals_said_to_fall_must_each_fall() -> None:
    totals, earlier = {"additions": 1214, "deletions": 623}, {"additions": 3330, "deletions": 307}
    evidence = PeriodEvidence(previous_period="2026-W20")
    wrong = "与上一周相比，本周新增行数与删除行数双双减少。"
    assert comparison_reasons(wrong, evidence, totals, earlier) == [
        "comparison: deletions 623 vs 307 上一周"
    ]
    true = "与上一周相比，本周新增行数减少，删除行数增加。"
    assert comparison_reasons(true, evidence, totals, earlier) == []


def test_a_bucket_named_with_its_kind_compares_as_that_kind() -> None:
    previous = {"modules": {"hardware": (1, 0)}, "categories": {"hardware": (5, 5)}}
    evidence = PeriodEvidence(previous=previous, previous_period="2025-W47")
    wrong = "hardware 类别本周有 5 个 PR，较上一周明显增加。"
    assert comparison_reasons(wrong, evidence) == ["comparison: hardware 5 vs 5 上一周"]
    assert comparison_reasons("hardware 模块本周有 1 个 PR，较上一周增加。", evidence) == []
    assert comparison_reasons("hardware 类别本周有 5 个 PR，与上一周持平。", evidence) == []


def test_a_speed_up_needs_a_cited_pr_that_speaks_of_speed() -> None:
    quiet = _pr(65, "fix: print the patch warning once")
    wrong = "#65 让补丁警告只打印一次，因此 GPU 冒烟测试耗时明显缩短。"
    assert speed_reasons(wrong, [quiet]) == [
        "consequence: 耗时明显缩短 (no cited PR tells a speed-up)"
    ]
    assert speed_reasons("#101 让损失函数改用 ABC 方法并缩短函数名。", [quiet]) == []
    fast = _pr(4067, "fully async is 1.65x faster than colocate over 200 steps")
    assert speed_reasons("#4067 reports fully async was 9 hours faster (1.65x).", [fast]) == []
