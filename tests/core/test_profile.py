"""Path globs of a repo profile: `*` within a segment, `**` across them, and a whole list of
globs matched as one regex."""

from __future__ import annotations

import pytest

from service.core.models import CollectedWeek
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
    weeks: dict[str, CollectedWeek], verl_profile: RepoProfile
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
