"""Path globs of a repo profile: `*` within a segment, `**` across them, and a whole list of
globs matched as one regex."""

from __future__ import annotations

import pytest

from service.core.models import CollectedPeriod
from service.core.profile import RepoProfile, matches_any, path_matches


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        ("verl/trainer/ppo/ray_trainer.py", "verl/**", True),
        ("verl/trainer/ppo/ray_trainer.py", "verl/*.py", False),
        ("verl/__init__.py", "verl/*.py", True),
        ("tests/a/test_x.py", "**/test_*.py", True),
        ("test_x.py", "**/test_*.py", True),
        ("docs/a.md", "docs/?.md", True),
        ("docs/ab.md", "docs/?.md", False),
        ("docs/a.md.bak", "docs/*.md", False),
    ],
)
def test_globs(path: str, pattern: str, expected: bool) -> None:
    assert path_matches(path, pattern) is expected
    assert matches_any(path, ["nothing/**", pattern]) is expected


def test_no_globs_match_nothing() -> None:
    assert matches_any("verl/a.py", []) is False


def test_a_list_matches_where_one_of_its_globs_does(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    """Every glob list of the verl profile on every path of the recorded weeks."""
    paths = {f.path for week in weeks.values() for pr in week.prs for f in pr.files}
    lists = [verl_profile.core_paths, *verl_profile.patterns.model_dump().values()]
    hits = 0
    for patterns in lists:
        for path in paths:
            expected = any(path_matches(path, pattern) for pattern in patterns)
            assert matches_any(path, patterns) is expected, (path, patterns)
            hits += expected
    assert hits > len(paths)


# real paths of the recorded weeks (2025-W47 #4263, verl 2026-W20, 2026-W03)
@pytest.mark.parametrize(
    ("path", "module"),
    [
        ("verl/experimental/reward_loop/reward_manager/naive.py", "reward"),
        ("verl/experimental/reward/reward_loop/naive.py", "reward"),
        ("verl/experimental/rewardless/x.py", "recipe"),  # `reward*` took it for `reward`
        ("verl/utils/megatron/optimizer.py", "megatron"),  # `megatron*` left it to utils
        ("verl/utils/megatron_peft_utils.py", "megatron"),
        ("verl/utils/megatronx/a.py", "training_utils"),
    ],
)
def test_the_verl_profile_maps_paths_by_whole_components(path: str, module: str) -> None:
    from service.core.profile import load_profile

    assert load_profile("volcengine/verl").module_for_path(path) == module


def test_no_shipped_rule_matches_a_folder_by_a_prefix_of_its_name() -> None:
    """A folder segment of a rule is a whole name or `*`/`**`: `reward*/` matches `reward_loop/`
    and every other folder whose name starts so."""
    from service.core.profile import builtin_profiles

    for profile in builtin_profiles():
        patterns = [
            *profile.core_paths,
            *(r.pattern for r in profile.module_paths),
            *(p for ps in profile.patterns.model_dump().values() for p in ps),
        ]
        for pattern in patterns:
            folders = pattern.split("/")[:-1]
            assert all("*" not in s or s in ("*", "**") for s in folders), (profile.name, pattern)
