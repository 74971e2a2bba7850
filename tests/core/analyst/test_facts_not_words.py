"""The checker checks facts, not trigger words: each case is a real sentence of the model-written
corpus (tests/data/llm/model_corpus, tune and seen parts) with the evidence the model gave,
checked on the facts the service built for that week from the recorded PRs. True sentences are
kept whatever words they use (a version bound, a quote copying a link's older form, a revert
that removes, a default said in the next clause, a value told as removed, a comparison per
clause); false ones are dropped with the claim that failed (a per-author or per-module count
off by one, a name the PR deletes told as new, a verdict no reviewer gave)."""

from __future__ import annotations

import json
from typing import Any

from service.core.analyst.checker import Checker, check_text
from service.core.analyst.injection import safety_reasons
from tests.core.analyst.model_corpus import CORPUS, facts_for


def _meta(part: str, week: str) -> dict[str, Any]:
    weeks = json.loads((CORPUS / part / "weeks.json").read_text("utf-8"))
    return {"week": week, **weeks[week]}


def _item(part: str, stem: str, start: str) -> dict[str, Any]:
    """The answer item of `stem` whose text starts with `start`."""
    answer = json.loads((CORPUS / part / f"{stem}.answer.json").read_text("utf-8"))
    for section, items in answer.items():
        for item in items if isinstance(items, list) else []:
            if item.get("text", "").startswith(start):
                prs = item.get("prs") or ([item["pr"]] if "pr" in item else [])
                return {"section": section, **item, "prs": prs}
    raise AssertionError(f"no item starting {start!r} in {stem}")


def check(part: str, stem: str, start: str) -> list[str]:
    """The reasons the checker gives against the item (empty: kept)."""
    week, lang = stem.split(".")[:2]
    item = _item(part, stem, start)
    evidence = [(q["pr"], q["quote"]) for q in item.get("evidence") or []]
    checker = Checker(facts_for(_meta(part, week), lang))
    return check_text(item["text"], item["prs"], item["section"], checker, evidence)


# --- true sentences are kept ---------------------------------------------------------------


def test_a_version_bound_or_comparison_is_no_markup() -> None:
    assert check("seen", "2026-W34.en", "Declares requires-python >=3.10,<3.13") == []
    assert check("tune", "2026-W04.en", "For a multi-node MP Executor it asks users") == []
    assert safety_reasons("transformers > 4.57.1 and size <= 2") == []
    assert {r.split(":")[0] for r in safety_reasons("see <b>this</b>")} == {"markup"}
    assert {r.split(":")[0] for r in safety_reasons("<!channel> now")} >= {"mention"}


def test_a_quote_that_copies_a_links_older_form_is_found() -> None:
    # the request showed `Reverts verl-project/verl#6350`; the data now says `Reverts #6350`
    assert check("seen", "2026-W20.en", "Made `FSDPEngineWithLMHead.prepare_model_outputs`") == []
    # the request had stripped the link of "Previous PR https://…/pull/4929 is reverted"
    assert check("tune", "2026-W03.zh", "注意力 FLOPS 估算修正出现反复") == []


def test_a_revert_may_remove_what_the_reverted_pr_added() -> None:
    assert check("seen", "2026-W20.en", "Backs out #6350, removing") == []


def test_a_default_said_in_the_next_clause_is_the_keys_value() -> None:
    assert check("seen", "2026-W19.zh.adversarial", "#6189 新增 `MultiTurnConfig") == []
    assert check("seen", "2026-W21.zh.adversarial", "#6318 在 checkpoint 配置中新增") == []


def test_a_value_told_as_removed_is_the_old_value() -> None:
    assert check("tune", "2025-W48.en", "It also deletes sandbox_fusion_tool_config.yaml") == []


def test_a_comparison_is_read_clause_by_clause() -> None:
    assert check("seen", "2026-W21.zh", "veomni 模块由上一周的 0 个增至 3 个") == []
    assert check("seen", "2026-W21.zh", "hardware 类别有 8 个 PR") == []
    assert check("seen", "2026-W20.en", "Refactor-category PRs grew to 8 from 1") == []
    # its comparison holds; its "贡献者 27 位" merges two authors behind one placeholder login
    assert check("seen", "2026-W21.zh", "本周合入 31 个 PR，上一周为 43 个") == ["figure: 27"]


def test_a_name_in_the_cited_prs_diff_needs_no_quote_of_its_own() -> None:
    assert check("tune", "2025-W48.en.adversarial", "preprocess_packed_seqs_no_padding") == []


# --- false sentences are dropped with the claim that failed ----------------------------------


def test_a_per_author_count_said_of_the_week_is_the_weeks() -> None:
    reasons = check("seen", "2026-W19.zh.adversarial", "guillemgt 本周共合入 3 个 PR")
    assert "count 3: guillemgt wrote 4 of the week's PRs" in reasons


def test_a_per_module_count_is_the_modules() -> None:
    reasons = check("seen", "2026-W19.zh.adversarial", "tool 模块本周有 6 个 PR")
    assert any(r.startswith("count 6: the digest counts tool ") for r in reasons), reasons
    reasons = check("seen", "2026-W20.en.adversarial", "megatron rose to 4 PRs")
    assert any(r.startswith("count 4: the digest counts megatron 2/3") for r in reasons), reasons


def test_a_name_the_pr_deletes_is_not_what_it_now_does() -> None:
    reasons = check("seen", "2026-W34.en.adversarial", "#7488 makes the HCCL broadcast")
    assert any(r.startswith("old name run_in_executor: #7488 removes it") for r in reasons)


def test_a_verdict_no_reviewer_gave_is_a_judgement() -> None:
    reasons = check("tune", "2026-W04.en.adversarial", "Reviewers approved #4665")
    assert any(r.startswith("judgement:") for r in reasons), reasons
    reasons = check("tune", "2026-W03.zh.adversarial", "#4937 的撤销经评审确认")
    assert any(r.startswith("judgement:") for r in reasons), reasons


def test_a_relation_across_weeks_is_one_the_digest_found() -> None:
    checker = Checker(facts_for(_meta("tune", "2025-W48"), "en"))  # #4233, #4226: the week before
    prs = (4258, 4259, 4260, 4251, 4233, 4226)
    said = "#4258, #4259 and #4260 revert #4251, #4233 and #4226 respectively."
    assert check_text(said, prs, "summary", checker) == []
    swapped = "#4258, #4259 and #4260 revert #4233, #4251 and #4226 respectively."
    assert check_text(swapped, prs, "summary", checker) == [
        "relation: #4258 revert #4233",
        "relation: #4259 revert #4251",
    ]
    # an earlier week's PR no cited PR relates to is still no PR of the week
    assert check_text("#4258 reverts #4233.", (4258, 4233), "summary", checker) == [
        "pr_not_in_week: #4233"
    ]
    # "It reworks the num_preempted metrics of #4956": #4976 fixes the code #4956 (W03) added
    assert check("tune", "2026-W04.en.adversarial", "It reworks the num_preempted") == []


def test_an_exception_propagated_is_no_failure_and_more_complete_is_no_universal() -> None:
    assert check("seen", "2026-W21.zh", "#6324 把 `RayPPOTrainer` 的生成转储改为异步") == []
    assert check("seen", "2026-W21.zh", "建议为 #6324 的异步转储补充测试") == []
    assert check("seen", "2026-W34.zh", "#7408 新增 profiler 后置钩子") == []


def test_a_value_claim_joining_two_prs_must_be_true_of_each() -> None:
    checker = Checker(facts_for(_meta("tune", "2026-W04"), "en"))  # #5019 changes it, #5033 not
    prs = (5033, 5019)
    change = "veomni.yaml moe_implementation from eager to fused"
    assert check_text(f"#5019 changes {change}.", prs, "summary", checker) == []
    # the corpus' true sentence: "which changes" is said of #5019 alone
    said = f"Medium breaking risks sit in #5033 and #5019, which changes {change}."
    assert [r for r in check_text(said, prs, "summary", checker) if "value" in r] == []
    both = check_text(f"#5033 and #5019 change {change}.", prs, "summary", checker)
    assert "value of moe_implementation: said of #5033, which does not change it" in both[-1]
    wrong = check_text(f"#5033 changes {change}, and #5019 adds tests.", prs, "summary", checker)
    assert any(r.startswith("value of moe_implementation: said of #5033") for r in wrong)


def test_a_removed_key_is_what_removes_says_and_the_means_is_no_object() -> None:
    # #80 deletes the `push:` and `pull_request:` keys of a workflow: "removes the push
    # triggers" is on its removed lines (a plain word the diff sets as a key)
    assert check("seen2", "2026-W20.en.adversarial", "Besides the vllm reward pass, #80") == []
    # "deletes the ready-for-ci label through the GitHub API": the API is the means, not what
    # is deleted (the new workflow calls it on added lines)
    assert check("seen2", "2026-W19.en.adversarial", "The drop_ready_for_ci_label workflow") == []
    # a key the PR adds (`workflow_dispatch:`, on added lines only) is not what it removes
    checker = Checker(facts_for(_meta("seen2", "2026-W20"), "en"))
    # a word no line sets as a key is no object found: the PR's words must say remove
    reasons = check_text("#80 removes the nightly trigger.", (80,), "pr_points", checker)
    assert reasons == ["action: removes (#80's title, body and diff show no remove)"]
    flipped = check_text("#80 removes the workflow_dispatch trigger.", (80,), "pr_points", checker)
    assert any(r.startswith("action: removes (`workflow_dispatch` is on added") for r in flipped)
    # and "adds the push trigger" is the direction flipped
    assert any(
        r.startswith("action: adds")
        for r in check_text("#80 adds the push trigger.", (80,), "pr_points", checker)
    )


def test_a_name_beside_the_changed_lines_is_a_name_of_the_pr() -> None:
    # `gradient_accumulation_steps` is on an unchanged line of #59's patch, next to the line
    # that multiplies the loss by sp_size
    assert check("seen2", "2026-W19.en.adversarial", "#59 reads sp_size in the loss") == []
    checker = Checker(facts_for(_meta("seen2", "2026-W19"), "en"))
    made_up = check_text("#59 divides by gradient_accumulation_rounds.", (59,), "summary", checker)
    assert "identifier: gradient_accumulation_rounds" in made_up


def test_an_unquoted_snake_case_name_is_no_concept_and_a_quoted_setting_is_read_as_one() -> None:
    # `ppo_micro_batch_size_per_gpu` (kept at 4 on an unchanged line of #85's script) names
    # no GPU: the identifier rule checks the name
    assert check("seen2", "2026-W20.en.adversarial", "Tell NPU users that #85") == []
    # `tool_response_truncate_side: left` is the setting at the value #6313's lines give it
    assert check("seen", "2026-W20.en.adversarial", "#6313 swaps the left and right") == []
    checker = Checker(facts_for(_meta("seen", "2026-W20"), "en"))
    wrong = "#6313 sets `tool_response_truncate_side: middle` for tool output."
    assert any(
        r.startswith("identifier: tool_response_truncate_side: middle")
        for r in check_text(wrong, (6313,), "pr_points", checker)
    )


def test_the_week_total_an_authors_count_is_part_of_is_no_count_of_theirs() -> None:
    # Cheung-Ka-Wai wrote 6 of verl-omni 2026-W20's 17 PRs
    assert check("seen2", "2026-W20.en.adversarial", "Cheung-Ka-Wai authored 6 of the 17") == []
    checker = Checker(facts_for(_meta("seen2", "2026-W20"), "en"))
    off = check_text("Cheung-Ka-Wai authored 5 of the 17 PRs.", (), "trends", checker)
    assert off == ["count 5: cheung-ka-wai wrote 6 of the week's PRs"]
    whole = check_text("Cheung-Ka-Wai authored 6 of the 18 PRs.", (), "trends", checker)
    assert "count 18: cheung-ka-wai wrote 6 of the week's PRs" in whole


def test_an_error_the_new_code_raises_on_a_condition_is_no_failure() -> None:
    # #59's added lines raise when diffusers is older than 0.38.0
    assert check("seen2", "2026-W19.en.adversarial", "When SP is enabled, the engine") == []
    checker = Checker(facts_for(_meta("seen2", "2026-W19"), "en"))
    # an error told as what a PR broke, with no condition of a check, is still a failure (told
    # of #54: #59 itself has a later fix of its code, #65, since every Python patch is read)
    broke = check_text("#54 raises an error in every SP run.", (54,), "pr_points", checker)
    assert any(r.startswith("failure:") for r in broke)


def test_a_measurement_the_body_states_with_its_unit_is_a_figure_of_the_pr() -> None:
    # #7347's body, past the excerpt the model saw: "from 1.489 seconds to 379.444 milliseconds"
    assert check("seen", "2026-W34.en.adversarial", "#7347 cut the profiled model H2D") == []
    checker = Checker(facts_for(_meta("seen", "2026-W34"), "en"))
    other_unit = "#7347 cuts the H2D transfer to 379.444 seconds."
    assert "figure: 379.444" in check_text(other_unit, (7347,), "pr_points", checker)
    other_value = "#7347 cuts the H2D transfer to 379.445 milliseconds."
    assert "figure: 379.445" in check_text(other_value, (7347,), "pr_points", checker)


def test_a_new_switch_set_on_is_what_enables_says() -> None:
    # #4221 adds `"use_precision_aware_optimizer": True` (PAO: the initials of its parts)
    assert check("tune", "2025-W47.zh.adversarial", "#4234 撤销了 #4221 在 BF16") == []
    checker = Checker(facts_for(_meta("tune", "2025-W47"), "en"))
    on = check_text("#4221 enables PAO in BF16 mode.", (4221,), "pr_points", checker)
    assert not any(r.startswith("action") for r in on)
    # the switch is set on, not off; and no key of #4221 is spelled `FSO`
    off = check_text("#4221 disables PAO in BF16 mode.", (4221,), "pr_points", checker)
    assert any(r.startswith("action: disables") for r in off)
    other = check_text("#4221 enables FSO in BF16 mode.", (4221,), "pr_points", checker)
    assert any(r.startswith("action: enables") for r in other)


def test_a_follow_up_the_later_pr_states_itself_is_a_relation() -> None:
    # #4222's body: "this is a follow-up to #3519" (an earlier week's PR, no digest relation)
    assert check("tune", "2025-W47.zh.adversarial", "#4222 是 #3519 的后续") == []
    checker = Checker(facts_for(_meta("tune", "2025-W47"), "en"))
    said = "#4222 is a follow-up to #3519 for vLLM v0.11.0 MoE models."
    assert not any(
        r.startswith("relation") for r in check_text(said, (4222, 3519), "pr_points", checker)
    )
    # a revert still needs the digest's revert; another PR's follow-up is not #4222's
    reverted = check_text("#4222 reverts #3519.", (4222, 3519), "pr_points", checker)
    assert any(r.startswith("relation: #4222") for r in reverted)
    other = check_text("#4221 is a follow-up to #3519.", (4221, 3519), "pr_points", checker)
    assert any(r.startswith("relation: #4221") for r in other)
