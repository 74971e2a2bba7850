"""Misreadings of the seen7 and seen8 answers (verl-recipe 2026-W19 to W21, verl-vla 2026-W21
and W34), read sentence by sentence after stop 41: each test checks a real corpus sentence on
the week's real facts, and the false variant beside it is still dropped."""

from __future__ import annotations

from tests.core.analyst.test_misreadings_sides import _reasons, _rules

# --- an imperative is advice, not an action of the PR ------------------------------------


def test_a_recommendation_opening_with_a_bare_verb_claims_no_action() -> None:
    text = (
        "Add tests covering the trainer changes in #3, since it carries a low-severity risk "
        "finding for core code without tests."
    )
    assert _reasons("seen8", "2026-W21", "en", text, [3]) == []
    # "Adds …" tells what the PR did, and #3 adds no test
    told = "Adds tests covering the trainer changes in #3."
    assert "action" in _rules(_reasons("seen8", "2026-W21", "en", told, [3]))


# --- "no previous week to compare" of a week with none --------------------------------------


def test_no_earlier_week_told_of_a_week_without_one_is_kept() -> None:
    text = (
        "Both modules touched this week, dance_grpo and doc, count 1 PR each, #59, and the data "
        "has no previous-week count to compare against."
    )
    assert _reasons("seen8", "2026-W19", "en", text, [59]) == []
    zh = (
        "本周涉及的 dance_grpo 和 doc 两个模块各计 1 个 PR（#59），数据中没有上一周的数量可供比较。"
    )
    assert _reasons("seen7", "2026-W19", "zh", zh, [59]) == []
    # a comparison with a week the data does not hold still needs its figure
    compared = "The dance_grpo module rose from 0 PRs last week to 1 PR, #59."
    assert "comparison" in _rules(_reasons("seen8", "2026-W19", "en", compared, [59]))


def test_all_before_the_one_pr_listed_is_that_prs() -> None:
    text = (
        "Trends show 1 PR each for the examples and verl_vla modules, the refactor category and "
        "the feat type, all #3, with no previous week to compare against."
    )
    assert _reasons("seen8", "2026-W21", "en", text, [3]) == []


# --- names of the data that look like claims ------------------------------------------------


def test_the_accelerator_is_a_device_not_a_speed_up() -> None:
    text = (
        "HPSv3RewardManager keeps the HPSv3 model on CPU at rest and moves it to the accelerator "
        "only while scoring, and the worker scales raw scores by reward_scale 0.1."
    )
    assert _reasons("seen8", "2026-W19", "en", text, [59]) == []
    faster = "#59 accelerates scoring by keeping the HPSv3 model on CPU."
    assert "consequence" in _rules(_reasons("seen8", "2026-W19", "en", faster, [59]))


def test_exposing_a_metric_the_pr_lists_is_no_leak() -> None:
    text = (
        "#98 adds 4 lines to 1 file and exposes training/rollout_actor_probs_pearson_corr, the "
        "Pearson corrcoef of rollout vs. actor logprobs."
    )
    assert _reasons("seen7", "2026-W20", "en", text, [98]) == []
    leak = "#98 exposes the wandb credentials of the run."
    assert "failure" in _rules(_reasons("seen7", "2026-W20", "en", leak, [98]))


def test_a_risk_kind_of_the_cited_pr_is_a_known_name() -> None:
    text = (
        "The data holds 1 risk group with 1 low-severity core_without_tests finding on #3, "
        "pointing at `sac_separate_trainer.py` line 443, `actor_input = None`."
    )
    assert _reasons("seen8", "2026-W21", "en", text, [3]) == []


def test_a_commit_the_pr_pins_is_no_secret() -> None:
    text = (
        "#21 将 `docker/Dockerfile.isaaclab_arena` 的 ARENA_COMMIT 推进到 "
        "6cdf0056873075cf828d2af45859db40f7c6a37b，以引入 Arena 侧的资产修复。"
    )
    assert _reasons("seen7", "2026-W34", "zh", text, [21]) == []
    other = "#21 将 ARENA_COMMIT 推进到 0123456789abcdef0123456789abcdef01234567。"
    assert "secret" in _rules(_reasons("seen7", "2026-W34", "zh", other, [21]))


# --- a shell variable and its fallback ------------------------------------------------------


def test_a_shell_variable_is_not_the_config_key_spelled_alike() -> None:
    # run_verl_dance.sh: `+SAVE_FREQ=-1`, `+SAVE_FREQ=${SAVE_FREQ:-50}`; the yaml's
    # `trainer.save_freq: -1` is another setting
    text = (
        "For #59, reconcile SAVE_FREQ in run_verl_dance.sh: it is set to -1 before "
        "SAVE_FREQ=${SAVE_FREQ:-50}, so the launcher saves no checkpoints by default although "
        "the README lists 50."
    )
    assert _reasons("seen8", "2026-W19", "en", text, [59]) == []
    wrong = "#59's run_verl_dance.sh sets SAVE_FREQ to 100."
    assert _reasons("seen8", "2026-W19", "en", wrong, [59]) != []


# --- the risk findings of a PR --------------------------------------------------------------


def test_a_count_of_findings_is_the_risks_of_that_kind() -> None:
    # one absolute_path finding with two evidence lines
    text = (
        "Risk detection raised 2 low-severity absolute_path findings in #59, one for the HPSv3 "
        "weights and one for the Qwen2-VL-7B-Instruct directory."
    )
    assert _rules(_reasons("seen8", "2026-W19", "en", text, [59])) == {"count"}
    zh = "风险检测在 #59 中报出 2 条低严重度的 absolute_path 发现。"
    assert _rules(_reasons("seen7", "2026-W19", "zh", zh, [59])) == {"count"}
    one = "Risk detection raised 1 low-severity absolute_path finding in #59."
    assert _reasons("seen8", "2026-W19", "en", one, [59]) == []


def test_a_path_placed_on_a_findings_other_evidence_line_is_dropped() -> None:
    # README.md:77 holds the HPSv3 path, README.md:83 the Qwen2-VL-7B-Instruct one
    text = (
        "The absolute_path finding in #59 points at README line 77, which hardcodes "
        "/home/CKPT/Qwen2-VL-7B-Instruct as the reward model weight path."
    )
    assert _rules(_reasons("seen8", "2026-W19", "en", text, [59])) == {"risk line 77"}
    right = (
        "The absolute_path finding in #59 points at README line 77, which hardcodes "
        "/home/CKPT/HPSv3/HPSv3.safetensors as the reward model weight path."
    )
    assert _reasons("seen8", "2026-W19", "en", right, [59]) == []
