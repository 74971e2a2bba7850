"""The checker on sentences with evidence and on value claims, from real cases of the recorded
weeks: a quote must be in its PR's data on its side; a value or default claim is matched exactly
against the parsed config change (kept when it matches, dropped with the data's values when
not); a value only on a removed line is told as the old one."""

from __future__ import annotations

import pytest

from service.core.analyst.checker import Checker, check_text, grounds
from service.core.analyst.schema import Draft
from tests.core.analyst.helpers import week_facts

ROLLOUT = "verl/trainer/config/rollout/rollout.yaml"


def check(
    week: str, lang: str, text: str, prs: tuple[int, ...], *quotes: tuple[int, str]
) -> list[str]:
    return check_text(text, prs, "pr_points", Checker(week_facts(week, lang)), quotes)


@pytest.mark.parametrize(
    ("week", "lang", "text", "pr"),
    [
        (
            "2025-W47",
            "zh",
            "#4106 把 rollout.yaml 的 `rollout.mode` 默认值由 sync 改为 async",
            4106,
        ),
        ("2025-W47", "en", "#4106 changes the default of `rollout.mode` from sync to async", 4106),
        ("2026-W04", "zh", "#4936 在 hf_model.yaml 中新增 `mtp.enable`（默认 False）", 4936),
        ("2026-W04", "en", "#4280 raises `update_weights_bucket_megabytes` from 512 to 2048", 4280),
        ("2026-W04", "en", "#5019 switches the default `moe_implementation` to fused", 5019),
        ("2026-W04", "en", "#4280 lowers `max_num_seqs` in rollout.yaml from 1024 to 256", 4280),
    ],
)
def test_a_value_claim_the_config_change_holds_is_kept_without_evidence(
    week: str, lang: str, text: str, pr: int
) -> None:
    assert check(week, lang, text, (pr,)) == []


@pytest.mark.parametrize(
    ("week", "text", "pr", "reason"),
    [
        (
            "2025-W47",
            "#4106 changes the default of `rollout.mode` from async to sync",
            4106,
            "value of rollout.mode: sync is the old value (the data says rollout.yaml mode: "
            "sync → async), the sentence says async → sync",
        ),
        (
            "2026-W04",
            "#4280 raises `max_num_seqs` from 1024 to 256",
            4280,
            "value of max_num_seqs: the sentence says it rises, the data says rollout.yaml "
            "max_num_seqs: 1024 → 256",
        ),
        (
            "2026-W04",
            "#5019 sets `moe_implementation` to eager by default",
            5019,
            "value of moe_implementation: eager is the old value",
        ),
    ],
)
def test_a_value_claim_the_data_contradicts_is_dropped_with_the_data(
    week: str, text: str, pr: int, reason: str
) -> None:
    reasons = check(week, "en", text, (pr,))
    assert any(r.startswith(reason) for r in reasons), reasons


def test_quotes_are_looked_up_on_their_side_of_their_pr() -> None:
    text = "#4106 switches the rollout default to async mode"
    added = (4106, f"+{ROLLOUT}: mode: async")
    assert check("2025-W47", "en", text, (4106,), added) == []
    wrong_side = check("2025-W47", "en", text, (4106,), (4106, f"-{ROLLOUT}: mode: async"))
    assert any("is an added line, not -" in r for r in wrong_side), wrong_side
    made_up = check("2025-W47", "en", text, (4106,), (4106, f"+{ROLLOUT}: mode: turbo"))
    assert any(r.startswith("quote of #4106") for r in made_up), made_up
    other = check("2025-W47", "en", text, (4106,), (4107, "RateLimitedRewardLoopManager"))
    assert any("not a PR the item cites" in r for r in other), other


def test_a_value_only_on_a_removed_line_is_told_as_the_old_value() -> None:
    removed = (4106, f"-{ROLLOUT}: mode: sync")
    added = (4106, f"+{ROLLOUT}: mode: async")
    new = check("2025-W47", "en", "#4106 runs rollout in sync mode by default", (4106,), removed)
    assert any(r.startswith("old value sync") for r in new), new
    told_old = "#4106 moves the rollout default away from sync mode to async mode"
    assert check("2025-W47", "en", told_old, (4106,), removed, added) == []


def test_a_figure_with_evidence_must_be_in_the_quotes_and_a_quoted_one_stands() -> None:
    line = (4885, "+verl/utils/distributed.py: store_timeout: int = 300,")
    quoted = "#4885 gives the new `store_timeout` setting a default of 300"
    assert check("2026-W04", "en", quoted, (4885,), line) == []
    unquoted = check("2026-W04", "en", "#4885 waits 3600 seconds for the store", (4885,), line)
    assert any(r.startswith("figure 3600: not in the quotes") for r in unquoted), unquoted


def test_what_grounded_a_kept_sentence_is_told() -> None:
    checker = Checker(week_facts("2025-W47", "en"))
    draft = Draft(
        "pr_points",
        "#4106 changes the default of `rollout.mode` from sync to async",
        (4106,),
        evidence=((4106, "rollout.yaml mode: sync → async"),),
    )
    assert grounds(draft, checker) == [
        '#4106 config_changes: "rollout.yaml mode: sync → async"',
        "value of rollout.mode: #4106 rollout.yaml mode: sync → async",
    ]


def test_a_count_of_an_authors_prs_is_that_authors_count() -> None:
    checker = Checker(week_facts("2026-W04", "en"))  # Huazhong wrote 2 of the week's PRs
    assert check_text("Huazhong merged 2 PRs this week", (), "summary", checker) == []
    off_by_one = check_text("Huazhong merged 1 PRs this week", (), "summary", checker)
    assert "count 1: huazhong wrote 2 of the week's PRs" in off_by_one
