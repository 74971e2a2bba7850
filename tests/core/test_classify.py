"""classify_pr on real verl PRs: title convention, tolerant titles, paths, labels, categories."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.core.classify import Classification, classify_pr, type_from_keywords
from service.core.models import FileChange, FileStatus, PullRequest
from service.core.profile import RepoProfile, load_profile
from tests.conftest import load_week

WHEN = datetime(2026, 1, 20, tzinfo=UTC)


def _real(week: str, number: int) -> PullRequest:
    return next(p for p in load_week(week).prs if p.number == number)


def _classify(week: str, number: int, profile: RepoProfile) -> Classification:
    return classify_pr(_real(week, number), profile)


def _pr(title: str, files: list[FileChange] | None = None, **extra: object) -> PullRequest:
    return PullRequest(
        number=1,
        title=title,
        created_at=WHEN,
        merged_at=WHEN,
        files=files or [],
        **extra,
    )


def test_breaking_title_with_modules_and_type(verl_profile: RepoProfile) -> None:
    c = _classify("2026-W04", 4280, verl_profile)
    assert c.breaking
    assert c.modules == ["worker", "rollout", "vllm"]
    assert c.change_type == "feat"
    assert c.modules_from == "title"


def test_modules_without_space_after_comma(verl_profile: RepoProfile) -> None:
    c = _classify("2026-W04", 4665, verl_profile)
    assert c.modules == ["ray", "rollout", "trtllm"]
    assert not c.breaking


def test_capitalised_type_is_recognised(verl_profile: RepoProfile) -> None:
    # "[megatron] Fix: fix bugs in mcore backend context-parallel code logic"
    assert _classify("2025-W48", 4250, verl_profile).change_type == "fix"


def test_doc_type_is_canonicalised_to_docs(verl_profile: RepoProfile) -> None:
    assert classify_pr(_pr("[doc] doc: tidy README"), verl_profile).change_type == "docs"


def test_untyped_title_falls_back_to_keywords(verl_profile: RepoProfile) -> None:
    # "[vllm] Fix CLI argument serialization for list types" has no `type:`
    assert _classify("2026-W03", 4869, verl_profile).change_type == "fix"
    # "[training_utils] A bug that caused device selection … has been covered by tests."
    assert _classify("2026-W03", 4967, verl_profile).change_type == "fix"


def test_title_without_convention_gets_modules_from_paths(verl_profile: RepoProfile) -> None:
    # "Correct Attention FLOPS estimation in flops_counter.py" touches verl/utils/flops_counter.py
    c = _classify("2026-W03", 4929, verl_profile)
    assert c.modules == ["training_utils"]
    assert c.modules_from == "paths"
    assert c.change_type == "fix"


def test_title_without_type_or_keyword_is_other(verl_profile: RepoProfile) -> None:
    # "Either remove + prefix: 'actor_rollout_ref.model.enable_activation_of…" edits examples/
    c = _classify("2026-W03", 4910, verl_profile)
    assert c.change_type == "other"
    assert c.modules == ["recipe"]
    assert c.category == "other"


def test_revert_keeps_reverted_title_and_its_modules(verl_profile: RepoProfile) -> None:
    c = _classify("2025-W47", 4234, verl_profile)
    assert c.is_revert
    assert c.change_type == "revert"
    assert c.reverted_title == "[megatron] fix: BF16 mode should use PAO as well"
    assert c.modules == ["megatron"]
    assert c.category == "reverts"


def test_revert_of_untyped_title_takes_modules_from_paths(verl_profile: RepoProfile) -> None:
    c = _classify("2026-W03", 4937, verl_profile)
    assert c.is_revert
    assert c.modules == ["training_utils"]
    assert c.modules_from == "paths"


def test_upper_case_and_aliased_modules(verl_profile: RepoProfile) -> None:
    c = classify_pr(_pr("[FSDP, Docs, NPU] fix: crash"), verl_profile)
    assert c.modules == ["fsdp", "doc", "hardware"]


def test_conventional_commit_scope_is_a_module(verl_profile: RepoProfile) -> None:
    c = classify_pr(_pr("fix(trainer): crash on resume"), verl_profile)
    assert c.modules == ["trainer"]
    assert c.change_type == "fix"


def test_part_prefix_is_not_a_module(verl_profile: RepoProfile) -> None:
    c = classify_pr(_pr("[1/N][megatron] feat: split optimizer"), verl_profile)
    assert c.modules == ["megatron"]


def test_path_modules_most_changed_first(verl_profile: RepoProfile) -> None:
    files = [
        FileChange(path="docs/index.md", additions=3),
        FileChange(path="verl/workers/rollout/vllm_rollout/x.py", additions=90),
        FileChange(path="verl/trainer/ppo/core.py", additions=20),
    ]
    c = classify_pr(_pr("make things better", files), verl_profile)
    assert c.modules == ["vllm", "trainer", "doc"]
    assert c.modules_from == "paths"


def test_labels_add_modules_type_and_breaking(verl_profile: RepoProfile) -> None:
    c = classify_pr(
        _pr("make rollout faster", labels=["megatron", "bug", "breaking"]), verl_profile
    )
    assert c.modules == ["megatron"]
    assert c.modules_from == "labels"
    assert c.change_type == "fix"
    assert c.breaking


def test_labels_extend_title_modules(verl_profile: RepoProfile) -> None:
    c = classify_pr(_pr("[vllm] feat: x", labels=["rollout", "good first issue"]), verl_profile)
    assert c.modules == ["vllm", "rollout"]
    assert c.modules_from == "title"
    assert c.change_type == "feat"


def test_unknown_labels_are_ignored(verl_profile: RepoProfile) -> None:
    c = classify_pr(_pr("[vllm] chore: x", labels=["needs-triage"]), verl_profile)
    assert c.modules == ["vllm"]
    assert c.change_type == "chore"


@pytest.mark.parametrize(
    ("week", "number", "category"),
    [
        ("2025-W48", 4283, "migration"),  # moves recipes out: 21 files removed
        ("2025-W48", 4352, "refactor"),  # "refactor engine folder structure"
        ("2025-W48", 4211, "refactor"),
        ("2025-W47", 3427, "hardware"),  # "DeepSeek-R1-Zero on Ascend NPU"
        ("2026-W04", 4885, "hardware"),  # Hccl ckpt engine backend
        ("2026-W04", 4320, "performance"),  # [perf] profiler
        ("2026-W04", 4944, "performance"),  # sync_weights oom
        ("2025-W48", 4279, "infra"),  # [ci] e2e timeout
        ("2026-W03", 4900, "docs"),
        ("2025-W47", 4185, "features"),  # [rollout, doc]: primary module is rollout
        ("2026-W04", 4931, "fixes"),
        ("2025-W47", 4149, "fixes"),  # "standalone mode" is not a migration
    ],
)
def test_categories_of_real_prs(
    verl_profile: RepoProfile, week: str, number: int, category: str
) -> None:
    assert _classify(week, number, verl_profile).category == category


def test_removed_files_alone_make_a_migration(verl_profile: RepoProfile) -> None:
    files = [FileChange(path=f"recipe/old/f{i}.py", status=FileStatus.REMOVED) for i in range(5)]
    assert classify_pr(_pr("[recipe] chore: tidy", files), verl_profile).category == "migration"
    assert classify_pr(_pr("[recipe] chore: tidy", files[:4]), verl_profile).category == "chores"


def test_keywords_pick_the_earliest_word(verl_profile: RepoProfile) -> None:
    assert type_from_keywords("Add a fix for the bug", verl_profile) == "feat"
    assert type_from_keywords("fix: add missing import", verl_profile) == "fix"
    assert type_from_keywords("prefix and suffix", verl_profile) is None


def test_generic_profile_takes_modules_from_top_folders() -> None:
    generic = load_profile("someone/else")
    files = [
        FileChange(path="src/parser/lex.c", additions=10),
        FileChange(path="README.md", additions=2),
    ]
    c = classify_pr(_pr("parser: faster lexing", files), generic)
    assert c.modules == ["parser", "doc"]
    assert c.change_type == "perf"  # `parser:` is no known type; "faster" is a perf keyword


def test_every_real_pr_is_classified(verl_profile: RepoProfile) -> None:
    for label in ("2025-W47", "2025-W48", "2026-W03", "2026-W04"):
        for pr in load_week(label).prs:
            c = classify_pr(pr, verl_profile)
            assert c.modules, pr.number
            assert c.change_type in set(verl_profile.type_weights) | {"other"}, pr.number


@settings(max_examples=300, deadline=None)
@given(title=st.text(), body=st.text(), labels=st.none() | st.lists(st.text(), max_size=4))
def test_any_title_body_and_labels_classify(
    verl_profile: RepoProfile, title: str, body: str, labels: list[str] | None
) -> None:
    c = classify_pr(_pr(title, body=body, labels=labels), verl_profile)
    assert c.modules
    assert c.category
    assert c.modules_from in {"title", "paths", "labels"}
