"""The relations pool reads each patch's changed lines without keeping a copy of them: what it
keeps of a week is the lines of code its PRs remove and who added them (issue 30)."""

from __future__ import annotations

import tracemalloc

from service.core.models import PullRequest
from service.core.relations import build_pool
from tests.commands.builders import huge_week


def _own_patches(prs: list[PullRequest]) -> list[PullRequest]:
    """Each PR with patches of its own (a real week's are distinct, the copies share them)."""
    made = []
    for pr in prs:
        files = [
            f.model_copy(update={"patch": f"{f.patch}\n # the context of #{pr.number}"})
            if f.patch
            else f
            for f in pr.files
        ]
        made.append(pr.model_copy(update={"files": files}))
    return made


def test_the_pool_keeps_no_copy_of_the_changed_lines() -> None:
    week = huge_week(600)
    prs = _own_patches(week.prs)
    patch_bytes = sum(len(f.patch or "") for pr in prs for f in pr.files)
    tracemalloc.start()
    try:
        pool = build_pool(week.repo, prs, {})
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert pool.removed  # it did read the patches
    # a copy of every changed line costs about twice the patches themselves (one str each);
    # what is kept here (the removed lines of code, their owners) is well under them
    assert kept < patch_bytes, (kept, patch_bytes)
