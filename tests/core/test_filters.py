"""narrow_digest on a real verl week (2026-W04, with 2026-W03 before it): each filter key picks
the PRs the recorded data says, and the narrowed digest has its own figures."""

from __future__ import annotations

import pytest

from service.core.digest import build_digest
from service.core.filters import DigestFilter, matching_numbers, narrow_digest, narrow_risk
from service.core.models import CollectedPeriod, Digest, Risk, RiskKind, Severity
from service.core.profile import RepoProfile
from tests.conftest import NOW, load_week

MEGATRON = [4936, 4632, 4931, 4944]  # every PR titled [megatron], most important first
VLLM_ROLLOUT = [4280, 4936, 4320, 4632, 4976, 4969, 5018]  # touch verl/workers/rollout/vllm_rollout
DOCS = [4665, 4936, 4320, 4632, 4970]  # touch docs/
HUAZHONG = [5033, 5018]
LABELS = {4280: ["breaking", "vllm"], 4885: ["npu"], 4938: ["NPU", "ckpt"]}


@pytest.fixture(scope="module")
def previous(verl_profile: RepoProfile) -> Digest:
    return build_digest(load_week("2026-W03"), verl_profile, language="en", now=NOW)


def labelled(week: CollectedPeriod) -> CollectedPeriod:
    """The recorded week (git history has no labels) with the labels a maintainer might set."""
    prs = [pr.model_copy(update={"labels": LABELS.get(pr.number, [])}) for pr in week.prs]
    return week.model_copy(update={"prs": prs})


@pytest.fixture(scope="module")
def digest(verl_profile: RepoProfile, previous: Digest) -> Digest:
    week, before = labelled(load_week("2026-W04")), load_week("2026-W03")
    return build_digest(
        week, verl_profile, language="en", now=NOW, previous=previous, earlier=before.prs
    )


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        (DigestFilter(modules=("megatron",)), MEGATRON),
        (DigestFilter(modules=("veomni", "ckpt")), [5033, 4885, 5019, 4938]),
        (DigestFilter(labels=("npu",)), [4885, 4938]),  # labels compare without case
        (DigestFilter(modules=("hardware",)), [4885, 4938]),  # the `npu` label's module
        (DigestFilter(labels=("breaking", "ckpt")), [4280, 4938]),
        (DigestFilter(paths=("verl/workers/rollout/vllm_rollout/**",)), VLLM_ROLLOUT),
        (DigestFilter(paths=("docs/**",)), DOCS),
        (DigestFilter(paths=("docs",)), DOCS),  # a folder named plainly
        (DigestFilter(paths=("*.md", "**/*.md")), [4665, 4936, 4885, 4320]),
        (DigestFilter(authors=("huazhong",)), HUAZHONG),
        (DigestFilter(severity=Severity.HIGH), [4280]),
        # #5019 changes a default (moe_implementation: eager → fused): a medium breaking item
        (DigestFilter(severity=Severity.MEDIUM), [4280, 4936, 5033, 4320, 4931, 5019]),
        (DigestFilter(modules=("megatron",), severity=Severity.MEDIUM), [4936, 4931]),
        (DigestFilter(modules=("rollout",), authors=("Huazhong",)), [5018]),
        (DigestFilter(modules=("megatron",), authors=("Huazhong",)), []),
    ],
)
def test_each_key_picks_the_recorded_prs(
    digest: Digest, flt: DigestFilter, expected: list[int]
) -> None:
    assert matching_numbers(digest, flt) == expected
    assert [p.number for p in narrow_digest(digest, flt).prs] == expected


def test_markdown_paths_hit_what_the_pr_changed(digest: Digest) -> None:
    """The `*.md` case above, checked against the file lists themselves."""
    markdown = {p.number for p in digest.prs if any(f.endswith(".md") for f in p.paths)}
    narrowed = narrow_digest(digest, DigestFilter(paths=("**/*.md",)))
    assert {p.number for p in narrowed.prs} == markdown


def test_a_narrowed_digest_has_its_own_figures(digest: Digest) -> None:
    narrowed = narrow_digest(digest, DigestFilter(modules=("megatron",)))
    prs = [digest.pr(n) for n in MEGATRON]
    assert narrowed.filter == "module:megatron"
    assert narrowed.stats.prs == len(MEGATRON)
    assert narrowed.stats.additions == sum(p.additions for p in prs if p)
    assert narrowed.stats.deletions == sum(p.deletions for p in prs if p)
    assert narrowed.stats.contributors == 3  # 4931 and 4632 have the same author
    assert narrowed.stats.changed_files == len({path for p in prs if p for path in p.paths})
    # risks of the megatron PRs only: a renamed module and two core changes without tests
    assert sorted((r.kind.value, r.prs[0]) for r in narrowed.risks) == [
        ("breaking", 4931),
        ("core_without_tests", 4931),
        ("core_without_tests", 4936),
    ]
    assert (narrowed.stats.risks_high, narrowed.stats.risks_medium) == (0, 3)
    assert narrowed.stats.risks_low == 0
    assert {c.login for c in narrowed.trends.contributors} == {p.author for p in prs if p}


def test_trends_count_the_matching_prs_against_the_week_before(
    digest: Digest, previous: Digest
) -> None:
    flt = DigestFilter(modules=("megatron",))
    narrowed = narrow_digest(digest, flt, previous)
    modules = {b.key: b for b in narrowed.trends.modules}
    assert set(modules) == {"megatron"}
    assert modules["megatron"].prs == sorted(MEGATRON)
    before = [n for b in previous.trends.modules if b.key == "megatron" for n in b.prs]
    assert modules["megatron"].previous == len(before)
    assert narrowed.trends.previous_period == "2026-W03"
    assert sum(b.count for b in narrowed.trends.types) == len(MEGATRON)
    # without the week before, no delta is claimed
    assert narrow_digest(digest, flt).trends.modules[0].previous is None


def test_the_narrative_speaks_of_the_matching_prs_only(digest: Digest) -> None:
    narrowed = narrow_digest(digest, DigestFilter(authors=("Huazhong",)))
    named = {n for s in narrowed.narrative.summary for n in s.prs}
    named |= {n for g in narrowed.narrative.key_changes for s in g.items for n in s.prs}
    assert named
    assert named <= set(HUAZHONG)
    overview = narrowed.narrative.summary[0]
    assert overview.params["count"] == len(HUAZHONG)


def test_severity_keeps_risks_at_or_above(digest: Digest) -> None:
    narrowed = narrow_digest(digest, DigestFilter(severity=Severity.MEDIUM))
    assert {r.severity for r in narrowed.risks} == {Severity.HIGH, Severity.MEDIUM}
    assert narrowed.stats.risks_low == 0
    assert narrowed.filter == "severity:medium"


def test_an_empty_filter_is_the_week_itself(digest: Digest) -> None:
    assert narrow_digest(digest, DigestFilter()) is digest


def test_no_match_leaves_an_empty_digest_with_zero_figures(digest: Digest) -> None:
    narrowed = narrow_digest(digest, DigestFilter(modules=("sft",)))
    assert (narrowed.prs, narrowed.risks, narrowed.stats.prs) == ([], [], 0)
    assert narrowed.filter == "module:sft"


def test_describe_writes_the_grammar_back_in_a_fixed_order() -> None:
    flt = DigestFilter(
        severity=Severity.HIGH, authors=("a",), paths=("docs/**",), labels=("x",),
        modules=("rollout", "npu"),
    )  # fmt: skip
    assert flt.describe() == "module:rollout,npu label:x path:docs/** author:a severity:high"


def test_a_roll_up_keeps_the_members_about_the_matching_prs() -> None:
    member = {"kind": RiskKind.DANGEROUS_COMMAND, "severity": Severity.HIGH}
    roll_up = Risk(
        kind=RiskKind.DANGEROUS_COMMAND,
        severity=Severity.HIGH,
        prs=[1, 2, 3],
        members=[Risk(prs=[1], **member), Risk(prs=[2], **member), Risk(prs=[3], **member)],
    )
    kept = narrow_risk(roll_up, {2, 3, 99})
    assert kept is not None
    assert kept.prs == [2, 3]
    assert [m.prs for m in kept.members] == [[2], [3]]
    assert narrow_risk(roll_up, {99}) is None


def test_a_narrowed_roll_up_counts_its_members_like_the_full_digest(digest: Digest) -> None:
    members = [
        Risk(kind=RiskKind.CORE_WITHOUT_TESTS, severity=Severity.LOW, prs=[n])
        for n in (4931, 4936, 4632, 5033)
    ]
    rolled = Risk(
        kind=RiskKind.CORE_WITHOUT_TESTS,
        severity=Severity.LOW,
        prs=[4931, 4936, 4632, 5033],
        members=members,
    )
    week = digest.model_copy(update={"risks": [rolled]})
    narrowed = narrow_digest(week, DigestFilter(modules=("megatron",)))
    # the megatron PRs among the members: one item, three findings, as the full digest counts
    assert len(narrowed.risks) == 1
    assert narrowed.stats.risks_low == 3
