"""Config keys and defaults read from real patches: YAML keys and dataclass fields, old → new
only where a changed line shows it."""

from __future__ import annotations

from service.core.analyst.config_changes import ConfigChange, config_changes, file_changes
from service.core.models import FileChange, PullRequest
from tests.conftest import load_week


def pr_of(label: str, number: int) -> PullRequest:
    return next(pr for pr in load_week(label).prs if pr.number == number)


def lines(pr: PullRequest) -> list[str]:
    return [c.line() for c in config_changes(pr)]


def test_real_yaml_defaults_changed_old_to_new() -> None:
    found = lines(pr_of("2026-W04", 4280))
    assert found[:2] == [
        "rollout.yaml max_num_seqs: 1024 → 256",
        "rollout.yaml update_weights_bucket_megabytes: 512 → 2048",
    ]


def test_real_dataclass_and_yaml_default_told_once() -> None:
    (change,) = config_changes(pr_of("2026-W04", 5019))
    assert (change.key, change.old, change.new, change.kind) == (
        "moe_implementation",
        "eager",
        "fused",
        "changed",
    )


def test_nested_yaml_keys_are_dotted_by_the_parents_the_hunk_shows() -> None:
    found = lines(pr_of("2026-W04", 4936))
    assert "hf_model.yaml mtp.enable_rollout: + False" in found
    assert not any("env_vars" in line for line in found)  # examples/ is no config default


def test_removed_dataclass_fields_are_removed_keys() -> None:
    found = {(c.key, c.kind) for c in config_changes(pr_of("2026-W03", 4544))}
    assert ("RolloutCorrectionConfig.rollout_token_veto_threshold", "removed") in found


def test_generated_copies_and_workflows_are_skipped() -> None:
    generated = FileChange(
        path="verl/trainer/config/_generated_ppo_trainer.yaml",
        patch="@@ -1,1 +1,1 @@\n-a: 1\n+a: 2",
    )
    workflow = FileChange(path=".github/workflows/e2e.yml", patch="@@ -1 +1 @@\n-x: 1\n+x: 2")
    assert list(file_changes(generated)) == []
    assert list(file_changes(workflow)) == []


def test_a_key_whose_parent_the_hunk_hides_is_marked() -> None:
    change = FileChange(
        path="verl/trainer/config/rollout/rollout.yaml",
        patch=(
            "@@ -120,3 +120,3 @@ engine_kwargs:\n   sglang: {}\n"
            "-  temperature: 1.0\n+  temperature: 0.7"
        ),
    )
    assert list(file_changes(change)) == [
        ConfigChange("verl/trainer/config/rollout/rollout.yaml", "…temperature", "1.0", "0.7")
    ]


def test_a_secret_in_a_default_is_masked() -> None:
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    change = FileChange(
        path="verl/trainer/config/tools.yaml", patch=f"@@ -1,1 +1,1 @@\n-key: null\n+key: {token}"
    )
    (found,) = file_changes(change)
    assert found.new == "ghp_****"
