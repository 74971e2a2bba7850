"""Relations and stories on the recorded verl weeks (issue 18, part 2): the exact relations each
week's PRs have to earlier PRs (of the week, and of the week before: 2025-W47 → 2025-W48,
2026-W03 → 2026-W04), the exact stories they make, and what must not be glued together."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from service.core.digest import build_digest
from service.core.models import Digest, FileChange, PullRequest, RelationKind
from service.core.profile import RepoProfile
from service.core.relations import find_relations, referenced
from tests.conftest import NOW, load_week

PREVIOUS = {"2025-W47": None, "2025-W48": "2025-W47", "2026-W03": None, "2026-W04": "2026-W03"}
R = RelationKind
WHEN = datetime(2026, 1, 20, tzinfo=UTC)

# (later, earlier, kind, the earlier PR's week when it is not this week)
RELATIONS = {
    "2025-W47": [
        (4163, 4151, R.SUBJECT, ""),  # one_step_off_policy on Ascend: the script and its doc
        (4183, 3427, R.SUPERSEDES, ""),  # fixes the README lines #3427 added this week
        (4189, 4146, R.SUBJECT, ""),  # the e2e_ascend workflow
        (4222, 3519, R.FOLLOWS, ""),  # "follow-up to #3519": blockwise FP8 rollout, MoE after dense
        (4234, 4221, R.REVERT, ""),
    ],
    "2025-W48": [
        (4251, 4226, R.REWORKS, "2025-W47"),
        (4258, 4251, R.REVERT, ""),
        (4259, 4233, R.REVERT, "2025-W47"),
        (4260, 4226, R.REVERT, "2025-W47"),
        (4265, 4254, R.SUPERSEDES, ""),  # rewrites the Dockerfile lines #4254 added
        (4267, 4254, R.FIXES, ""),  # "#4254" in the body
        (4267, 4189, R.SUBJECT, "2025-W47"),
        (4267, 4146, R.SUBJECT, "2025-W47"),
        (4273, 4251, R.RELAND, ""),  # nearly #4251's title, after its revert
        (4273, 4226, R.REWORKS, "2025-W47"),
        (4282, 4233, R.RELAND, "2025-W47"),  # "previous pr: …/pull/4233", reverted by #4259
        (4289, 4175, R.SUPERSEDES, ""),  # TransferQueue: 37 lines #4175 added
        (4224, 4067, R.REWORKS, "2025-W47"),  # recipe/fully_async_policy
        (4304, 4296, R.FIXES, ""),  # links pull/4296
        (4293, 4224, R.FIXES, ""),
        (4310, 4107, R.FIXES, "2025-W47"),
        (4350, 4163, R.SUBJECT, "2025-W47"),
        (4350, 4151, R.SUBJECT, "2025-W47"),
    ],
    "2026-W03": [
        (4892, 4878, R.SUBJECT, ""),  # the week's two [ci] PRs, on the pre-commit workflow
        (4902, 4928, R.SUBJECT, ""),  # TransferQueue
        (4937, 4929, R.REVERT, ""),
        (4916, 4889, R.SUBJECT, ""),  # the week's two [veomni] PRs, on the same engine file
        (4959, 4929, R.RELAND, ""),  # links pull/4929 "reverted due …", after #4937
    ],
    "2026-W04": [
        (4976, 4956, R.FIXES, "2026-W03"),  # the num_preempted metrics #4956 added
        (4969, 4715, R.FIXES, "2026-W03"),  # vllm TP+DP after last week's sglang TP+DP fix
        # takes out the `if max_model_len is None` guard #5018 added to keep user settings
        (4280, 5018, R.SUPERSEDES, ""),
        (5033, 4916, R.REWORKS, "2026-W03"),  # veomni offload code of last week
    ],
}

# stories of more than one PR or reaching an earlier week: (kind, this week's PRs lead first,
# earlier weeks' PRs)
STORIES = {
    "2025-W47": [
        ("performance", [3519, 4222], []),
        ("hardware", [3427, 4183], []),
        ("infra", [4146, 4189], []),
        ("hardware", [4163, 4151], []),
        ("reverts", [4221, 4234], []),
    ],
    "2025-W48": [
        ("reverts", [4273, 4260, 4251, 4258], [4226]),
        ("reverts", [4282, 4259], [4233]),
        ("features", [4175, 4289], []),
        ("features", [4224, 4293], [4067]),
        ("fixes", [4304, 4296], []),  # #4304's removed helper was used only by a test: not breaking
        ("fixes", [4310], [4107]),
        ("infra", [4267, 4254, 4265], [4146, 4189]),
        ("fixes", [4350], [4151, 4163]),
    ],
    "2026-W03": [
        ("refactor", [4889, 4916], []),
        ("features", [4902, 4928], []),
        ("reverts", [4929, 4959, 4937], []),
        ("infra", [4878, 4892], []),
    ],
    "2026-W04": [
        ("breaking", [4280, 5018], []),
        ("breaking", [5033], [4916]),
        ("fixes", [4976], [4956]),
        ("fixes", [4969], [4715]),
    ],
}


@pytest.fixture(scope="module")
def digests(verl_profile: RepoProfile) -> dict[str, Digest]:
    out = {}
    for label, before in PREVIOUS.items():
        earlier = load_week(before).prs if before else None
        out[label] = build_digest(
            load_week(label), verl_profile, language="zh", now=NOW, earlier=earlier
        )
    return out


@pytest.mark.parametrize("label", PREVIOUS)
def test_relations_of_each_recorded_week(digests: dict[str, Digest], label: str) -> None:
    found = [(r.pr, r.other, r.kind, r.week) for r in digests[label].relations]
    assert found == RELATIONS[label]


@pytest.mark.parametrize("label", PREVIOUS)
def test_stories_of_each_recorded_week(digests: dict[str, Digest], label: str) -> None:
    digest = digests[label]
    tied = [(s.kind, s.prs, s.earlier) for s in digest.stories if len(s.prs) > 1 or s.earlier]
    assert tied == STORIES[label]
    # every PR of the week is in exactly one story
    numbers = [n for s in digest.stories for n in s.prs]
    assert sorted(numbers) == sorted(p.number for p in digest.prs)


def test_without_last_week_no_relation_reaches_back(verl_profile: RepoProfile) -> None:
    digest = build_digest(load_week("2026-W04"), verl_profile, language="zh", now=NOW)
    assert [(r.pr, r.other, r.kind, r.week) for r in digest.relations] == [
        (4280, 5018, R.SUPERSEDES, "")
    ]
    assert all(not s.earlier for s in digest.stories)


@pytest.mark.parametrize(
    ("label", "numbers", "why"),
    [
        ("2026-W04", {5006, 5022, 4970}, "routine: a version bump, `fix ci`, doc links"),
        ("2026-W04", {4885, 4938}, "both [ckpt] and NPU, but an engine backend and a loader fix"),
        ("2026-W04", {4280, 4665}, "#4280 rewrites a line of #4665 in a big refactor"),
        ("2025-W47", {4223, 3519}, "FP8 training (megatron) and FP8 rollout (vllm)"),
        ("2025-W47", {4106, 4130}, "[rollout] is a busy module, not a subject"),
        ("2025-W48", {4063, 4250, 4196}, "[megatron] PRs of one week, on other things"),
        ("2025-W48", {4283, 4182}, "a migration deleting files is no rework of their lines"),
        ("2026-W03", {4961, 4962, 4929}, "device fixes of the same week touching other code"),
    ],
)
def test_routine_and_unrelated_prs_are_not_glued(
    digests: dict[str, Digest], label: str, numbers: set[int], why: str
) -> None:
    for story in digests[label].stories:
        assert len(numbers & {*story.prs, *story.earlier}) <= 1, why


def test_a_big_rewrite_is_no_revert_of_what_it_sweeps_away(digests: dict[str, Digest]) -> None:
    """#4280 removes all 6 lines #4915 added last week, but they are 2% of what it removes;
    it does rewrite what #5018 added this week (not a revert either)."""
    found = [(r.other, r.kind) for r in digests["2026-W04"].relations if r.pr == 4280]
    assert found == [(5018, R.SUPERSEDES)]


def _pr(
    number: int, title: str, body: str = "", patch: str = "", hours: int = 0, path: str = ""
) -> PullRequest:
    files = [FileChange(path=path or "verl/a.py", patch=patch)] if patch else []
    when = WHEN + timedelta(hours=hours)
    return PullRequest(
        number=number, title=title, body=body, created_at=when, merged_at=when, files=files
    )


CODE = ("def compute_advantage(x):", "    value = normalise(x) * gain", "    return value")
ADDED = "@@ -1,0 +1,3 @@\n" + "".join(f"+{line}\n" for line in CODE)
REMOVED = "@@ -1,3 +1,0 @@\n" + "".join(f"-{line}\n" for line in CODE)


def test_a_fix_that_takes_back_what_another_added_is_a_revert() -> None:
    """Titled `fix`, it removes every line of code the other PR added: a (partial) revert."""
    first = _pr(10, "[trainer] feat: new advantage", patch=ADDED)
    undo = _pr(11, "[trainer] fix: training diverges", patch=REMOVED, hours=5)
    [relation] = find_relations("volcengine/verl", [first, undo])
    assert (relation.pr, relation.other, relation.kind) == (11, 10, RelationKind.REVERT)


def test_references_count_in_any_org_after_the_repository_moved() -> None:
    body = (
        "Follow-up of https://github.com/verl-project/verl/pull/12 and volcengine/verl#13;"
        " see also other-org/other-repo#14 and https://github.com/someone/fork/pull/15."
    )
    assert referenced(_pr(20, "[misc] feat: x", body), "verl") == {12, 13}
    earlier = _pr(12, "[misc] feat: the first part")
    [relation] = find_relations(
        "verl-project/verl", [_pr(20, "[misc] feat: x", body, hours=1)], {"2026-W03": [earlier]}
    )
    assert (relation.other, relation.kind, relation.week) == (12, RelationKind.FOLLOWS, "2026-W03")


def test_mfu_for_a_model_dense_and_moe_share_a_subject() -> None:
    """The issue's example: "MFU for model X dense" and "… MoE" are one story."""
    dense = _pr(30, "[perf] feat: MFU for Qwen3 dense models", patch=ADDED)
    moe = _pr(31, "[perf] feat: MFU for Qwen3 MoE models", patch=ADDED, hours=30)
    other = _pr(32, "[perf] feat: faster dataloader", patch=ADDED, hours=40, path="verl/data.py")
    relations = find_relations("volcengine/verl", [dense, moe, other])
    assert [(r.pr, r.other, r.kind) for r in relations] == [(31, 30, RelationKind.SUBJECT)]
