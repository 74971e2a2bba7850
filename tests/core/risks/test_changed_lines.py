"""Only the lines a PR changes are its risk: lines a rewrite or a move carries over are not.

The fixture is verl-project/verl#6353 (a docs refactor that moved the Ascend tutorials): three
renamed pages whose recorded patches show the whole file, with `pkill -9 python` and
`LD_PRELOAD=/usr/lib/…` lines that were in those pages long before. The week's report flagged
six risks on it; none is the PR's doing.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from service.core.models import FileChange, FileStatus, PullRequest, RiskKind
from service.core.profile import RepoProfile
from service.core.risks import detect_risks
from service.pipeline.recorded import load_recorded
from tests.core.risks.helpers import change, make_pr

CASES = Path(__file__).parents[2] / "data" / "risk_cases"
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
FLAGGED_BEFORE = {RiskKind.DANGEROUS_COMMAND, RiskKind.ABSOLUTE_PATH}


def docs_move() -> PullRequest:
    return load_recorded(CASES / "verl-6353-docs-moved.json", NOW).prs[0]


def test_renamed_pages_whose_patch_is_the_whole_file_raise_nothing(
    verl_profile: RepoProfile,
) -> None:
    pr = docs_move()
    assert all(c.status == FileStatus.RENAMED for c in pr.files)
    assert any("pkill -9 python" in (c.patch or "") for c in pr.files)
    risks = detect_risks([pr], verl_profile)
    assert not [r for r in risks if r.kind in FLAGGED_BEFORE]


def _as_delete_and_add(moved: FileChange) -> list[FileChange]:
    """The same move as GitHub shows it when rename detection fails: the old page deleted, the
    new one added, line for line."""
    lines = [line[1:] for line in (moved.patch or "").splitlines()[1:]]
    old = f"@@ -1,{len(lines)} +0,0 @@\n" + "\n".join("-" + line for line in lines)
    new = f"@@ -0,0 +1,{len(lines)} @@\n" + "\n".join("+" + line for line in lines)
    return [
        change(moved.previous_path or "", old, FileStatus.REMOVED),
        change(moved.path, new, FileStatus.ADDED),
    ]


def test_a_page_moved_as_delete_and_add_carries_its_commands_over(
    verl_profile: RepoProfile,
) -> None:
    files = [f for moved in docs_move().files for f in _as_delete_and_add(moved)]
    risks = detect_risks(
        [make_pr(6353, "[doc] chore: verl Ascend doc refactor", files)], verl_profile
    )
    assert not [r for r in risks if r.kind in FLAGGED_BEFORE]


def test_a_rewritten_page_is_judged_by_its_new_lines(verl_profile: RepoProfile) -> None:
    """The page rewritten in place: the carried `pkill -9` is not flagged, a new one is."""
    moved = next(c for c in docs_move().files if c.path.endswith("gspo_optimization_practice.md"))
    lines = [line[1:] for line in (moved.patch or "").splitlines()[1:]]
    rewritten = [*lines[:10], "pkill -9 ray", *lines[10:]]
    patch = (
        f"@@ -1,{len(lines)} +1,{len(rewritten)} @@\n"
        + "\n".join("-" + line for line in lines)
        + "\n"
        + "\n".join("+" + line for line in rewritten)
    )
    pr = make_pr(6353, "[doc] chore: rewrite", [change(moved.path, patch)])
    risks = [r for r in detect_risks([pr], verl_profile) if r.kind in FLAGGED_BEFORE]
    assert [(r.rule, r.evidence[0].snippet, r.evidence[0].line) for r in risks] == [
        ("pkill_9", "pkill -9 ray", 11)
    ]


# --- a moved directory is not a deleted one (volcengine/verl#4352) ---------------------------


def roles_refactor() -> PullRequest:
    """#4352 deletes verl/workers/roles/{__init__,actor,critic,hybrid_engine}.py and moves
    verl/workers/roles/utils/ to verl/workers/utils/ (three renames)."""
    return load_recorded(CASES / "verl-4352-roles-moved.json", NOW).prs[0]


def test_a_folder_partly_moved_lists_the_move_apart_from_the_deleted_files(
    verl_profile: RepoProfile,
) -> None:
    risks = [r for r in detect_risks([roles_refactor()], verl_profile) if r.kind == "migration"]
    assert [e.snippet for r in risks for e in r.evidence] == [
        "__init__.py, actor.py, critic.py, hybrid_engine.py, utils/ → verl/workers/utils/"
    ]
    assert risks[0].params["files"] == 4


def test_a_folder_moved_whole_is_no_removal(verl_profile: RepoProfile) -> None:
    moved = [c for c in roles_refactor().files if c.status == FileStatus.RENAMED]
    assert len(moved) == 3
    pr = make_pr(4352, "[model] feat: refactor engine folder structure", moved)
    kinds = {r.kind: r.rule for r in detect_risks([pr], verl_profile)}
    assert RiskKind.MIGRATION not in kinds
    assert kinds[RiskKind.BREAKING] == "renamed_module"  # the old import path is what users meet
