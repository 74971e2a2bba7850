"""Facts checked, not trigger words (issue 26, checker36): value claims read whole (a list, a
long dotted value, a name not part of a longer one), figures and defaults checked against the
cited PRs' lines; each from a true sentence of the model corpus and a false counterpart."""

from __future__ import annotations

import json

from service.core.analyst.checker import Checker, check_text
from service.core.analyst.facts import WeekFacts
from tests.core.analyst.model_corpus import CORPUS, facts_for


def _checker(part: str, week: str, language: str) -> Checker:
    meta = json.loads((CORPUS / part / "weeks.json").read_text("utf-8"))[week]
    facts: WeekFacts = facts_for({"week": week, **meta}, language)
    return Checker(facts)


def _reasons(checker: Checker, text: str, *prs: int, section: str = "pr_points") -> list[str]:
    return check_text(text, prs, section, checker)


def test_a_list_value_is_read_whole() -> None:
    checker = _checker("heldout", "2026-W20", "en")
    true = (
        "Announce the breaking `sde_window_range` default change in #58 from [0, 5] to null, "
        "so users relying on the old window set it explicitly."
    )
    assert _reasons(checker, true, 58, section="recommendations") == []


def test_a_word_after_default_is_no_value_and_a_lists_comma_ends_no_clause() -> None:
    checker = _checker("heldout", "2026-W20", "en")
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
    checker = _checker("heldout", "2026-W21", "zh")
    true = (
        "#99 中 `collate_fn` 默认为 null，此时 `get_collate_fn` 回退到上游默认的 collate 函数；"
        "只有设置了 `custom_cls.path` 才按名称加载自定义函数。"
    )
    assert _reasons(checker, true, 99, section="key_changes") == []
    false = true.replace("默认为 null", "默认为 true")
    assert any("value of collate_fn" in r for r in _reasons(checker, false, 99))
