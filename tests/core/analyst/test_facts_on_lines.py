"""Facts checked, not trigger words (issue 26, checker36): value claims read whole (a list, a
long dotted value, a name not part of a longer one), figures and defaults checked against the
cited PRs' lines; each from a true sentence of the model corpus and a false counterpart."""

from __future__ import annotations

import json

from service.core.analyst.checker import Checker, check_text
from service.core.analyst.facts import PeriodFacts
from tests.core.analyst.model_corpus import CORPUS, facts_for


def _checker(part: str, week: str, language: str) -> Checker:
    meta = json.loads((CORPUS / part / "weeks.json").read_text("utf-8"))[week]
    facts: PeriodFacts = facts_for({"week": week, **meta}, language)
    return Checker(facts)


def _reasons(checker: Checker, text: str, *prs: int, section: str = "pr_points") -> list[str]:
    return check_text(text, prs, section, checker)


def test_a_list_value_is_read_whole() -> None:
    checker = _checker("seen2", "2026-W20", "en")
    true = (
        "Announce the breaking `sde_window_range` default change in #58 from [0, 5] to null, "
        "so users relying on the old window set it explicitly."
    )
    assert _reasons(checker, true, 58, section="recommendations") == []


def test_a_word_after_default_is_no_value_and_a_lists_comma_ends_no_clause() -> None:
    checker = _checker("seen2", "2026-W20", "en")
    true = (
        "Flagged as a medium-severity breaking change because the `sde_window_range` default "
        "in `diffusion_rollout.yaml` moved from [0, 5] to null."
    )
    assert _reasons(checker, true, 58) == []
    false = true.replace("from [0, 5] to null", "from null to [0, 5]")
    (reason,) = _reasons(checker, false, 58)
    assert reason.startswith("value of sde_window_range: [0, 5] is the old value")


def test_a_long_value_is_not_cut_at_the_window() -> None:
    checker = _checker("seen", "2026-W19", "zh")
    old = "verl.workers.config.reward_model.RewardManagerConfig"
    new = "verl.workers.config.reward.RewardManagerConfig"
    true = f"#6265 将 `reward_manager._target_` 从 `{old}` 改为 `{new}`。"
    assert _reasons(checker, true, 6265) == []
    false = f"#6265 将 `reward_manager._target_` 从 `{new}` 改为 `{old}`。"
    assert any("value of reward_manager._target_" in r for r in _reasons(checker, false, 6265))


def test_a_key_is_a_whole_name_and_a_chinese_word_is_no_value() -> None:
    checker = _checker("seen2", "2026-W21", "zh")
    true = (
        "#99 中 `collate_fn` 默认为 null，此时 `get_collate_fn` 回退到上游默认的 collate 函数；"
        "只有设置了 `custom_cls.path` 才按名称加载自定义函数。"
    )
    assert _reasons(checker, true, 99, section="key_changes") == []
    false = true.replace("默认为 null", "默认为 true")
    assert any("value of collate_fn" in r for r in _reasons(checker, false, 99))


def test_a_figure_on_a_changed_line_beside_its_setting_is_the_fact() -> None:
    # rules alone: 384 and 512 are none of #79's own figures, but its diff sets them
    checker = _checker("seen2", "2026-W20", "en")
    true = (
        "#79 raises the full-weight Qwen-Image OCR recipe learning rate from 1e-5 to 3e-5 "
        "and its image resolution from 384 to 512."
    )
    assert _reasons(checker, true, 79, section="key_changes") == []
    false = true.replace("from 384 to 512", "from 384 to 768")
    assert "figure: 768" in _reasons(checker, false, 79, section="key_changes")


def test_a_short_figure_needs_what_it_is_given_to_on_the_same_line() -> None:
    checker = _checker("seen2", "2026-W20", "en")
    evidence = checker.evidence.pr(79)
    assert evidence is not None
    assert evidence.states("384", [], "its image resolution from 384 to 512")
    # 384 is on the resolution line: told of another setting it is no fact of the diff
    assert not evidence.states("384", [], "its batch size from 384 to 512")
    # "learning rate" spells `lr` (`actor_rollout_ref.actor.optim.lr=3e-5`)
    assert evidence.states("3e-5", [], "the learning rate to 3e-5")
    # a figure on a line that names nothing the sentence gives it to is no fact of it
    assert not evidence.states("3e-5", [], "the warmup to 3e-5")


def test_an_exponent_is_one_figure() -> None:
    from service.core.analyst.claims import figures

    assert [f.text for f in figures("lr from 7e-5 to 3e-4 and clip ratio 2e-6")] == [
        "7e-5",
        "3e-4",
        "2e-6",
    ]


def test_an_options_default_is_read_off_the_added_line_that_names_it() -> None:
    checker = _checker("seen2", "2026-W34", "zh")
    true = "#383 新增的 prepare_t2av_data.py 中 --train_size 与 --val_size 默认值均为 -1。"
    assert _reasons(checker, true, 383) == []
    false = true.replace("-1", "-2")
    (reason,) = _reasons(checker, false, 383)
    assert reason.startswith("default: 默认 (no changed line of #383 gives train_size")


def test_a_theme_that_names_no_value_rests_on_a_setting_that_changes() -> None:
    checker = _checker("seen2", "2026-W19", "en")
    assert _reasons(checker, "Reward manager defaults", 56, section="theme") == []
    # #45 changes no setting: the same words are no fact of it
    (reason,) = _reasons(checker, "CI workflow defaults", 45, section="theme")
    assert (
        reason == "default: defaults (#45 changes no setting's value and its words tell no default)"
    )


def test_a_verb_of_counts_is_no_action_and_a_failed_action_names_the_fact() -> None:
    checker = _checker("seen2", "2026-W21", "zh")
    true = (
        "rollout 模块本周 2 个 PR，上一周为 1 个；"
        "fixes 类别同样从 1 个增加到 2 个，均为 #94 与 #102。"
    )
    assert _reasons(checker, true, 94, 102, section="trends") == []
    w19 = _checker("seen2", "2026-W19", "en")
    # #62 adds the workflow: told as deleted, the reason is the side its name stands on
    false = "#62 deletes the `drop_ready_for_ci_label` workflow."
    assert _reasons(w19, false, 62) == [
        "action: deletes (`drop_ready_for_ci_label` is on added lines only of #62)"
    ]


def test_a_name_said_to_be_removed_after_it_is_told_as_the_old_one() -> None:
    checker = _checker("seen2", "2026-W19", "en")
    true = (
        "The reward.yaml reward_manager.source changes from register to importlib and the "
        "custom_reward_manager module name is removed, flagged as a medium breaking risk."
    )
    assert _reasons(checker, true, 56) == []
    advice = (
        "Launch scripts that still pass reward.reward_manager.name=visual should drop that "
        "override after #56, because reward.yaml now defaults to VisualRewardManager."
    )
    assert _reasons(checker, advice, 56, section="recommendations") == []
    # the old value told as the new default is still the old one
    false = advice.replace("defaults to VisualRewardManager", "defaults to naive")
    assert any(r.startswith("default: defaults") for r in _reasons(checker, false, 56))


def test_to_inside_a_name_is_no_new_value() -> None:
    from tests.core.analyst.helpers import week_facts

    checker = Checker(week_facts(language="zh"))
    reasons = _reasons(checker, "#4280 把 `trainer.total_epochs` 默认值改为 77。", 4280)
    assert "default: 默认 (no changed line of #4280 gives trainer.total_epochs the default 77)" in (
        reasons
    )
