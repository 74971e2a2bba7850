"""Issue 26 §4: the model is given the facts it needs, faithfully — links to PRs and issues
told as references (never stripped), relations, totals that agree with the lists, cut lists
that say how many more there are, breaking flags that agree with breaking risks, and authors
the data cannot name kept apart."""

from __future__ import annotations

from typing import Any

import pytest

from service.core.analyst.body import github_references, summary_lines
from service.core.analyst.facts import (
    CHECKS_SHOWN,
    DATA_BUDGET,
    REVIEW_NOTES,
    build_facts,
    clean_text,
    facts_payload,
    trimmed_payload,
)
from service.core.digest import build_digest
from service.core.mentions import leaf_risks, risk_groups
from service.core.models import (
    Check,
    Digest,
    PullRequest,
    RelationKind,
    Review,
    ReviewState,
    ReviewThread,
    RiskKind,
)
from service.core.profile import RepoProfile
from service.core.trends import identity
from service.pipeline.recorded import load_recorded
from service.render.report import render_markdown
from tests.commands.builders import WEEK_LABELS, digest_from_week, huge_week
from tests.conftest import NOW, WEEKS, load_week
from tests.core.analyst.helpers import week_digest, week_facts

VERL = ("volcengine/verl",)


def listed(payload: dict[str, Any], number: int) -> dict[str, Any]:
    return next(p for p in payload["prs"] if p["number"] == number)


def _summary(label: str, number: int) -> tuple[str, ...]:
    pr = week_facts(label).pr(number)
    assert pr is not None
    return pr.summary


@pytest.mark.parametrize(
    ("label", "number", "told"),
    [
        ("2026-W04", 4969, "fix #4715"),  # `fix https://github.com/volcengine/verl/pull/4715`
        ("2026-W04", 4885, "Based on ckpt engine abstraction #4775"),
        ("2026-W04", 4938, "resume issue #4399"),  # `issue https://…/issues/4399`: said once
        ("2026-W04", 4665, "(davidmlw/verl#43)"),  # a fork's PR is another repository's
        ("2026-W03", 4956, "(vllm-project/vllm#32470)"),
        ("2025-W48", 4304, "Previous PR: #4296"),  # `[4296 ](https://…/pull/4296)`
        ("2025-W48", 4273, "see issue #4261"),
        ("2025-W48", 4248, "rllm-org/rllm#298"),
    ],
)
def test_links_to_prs_and_issues_in_real_bodies_become_references(
    label: str, number: int, told: str
) -> None:
    summary = _summary(label, number)
    assert any(told in line for line in summary), summary
    assert not any("github.com" in line or "issue issue" in line for line in summary)


def test_the_checker_reads_the_same_references_the_model_is_told() -> None:
    facts = week_facts("2026-W04")
    assert facts.evidence is not None
    said = facts.evidence.pr(4969)
    assert said is not None
    assert "fix #4715" in said.text
    assert "github.com" not in said.text


def test_a_link_keeps_its_words_and_names_another_repository() -> None:
    body = (
        "This fixes the hang [introduced here](https://github.com/volcengine/verl/pull/4280/files)"
        " and https://github.com/verl-project/verl-omni/pull/12, see "
        "<https://github.com/volcengine/verl/issues/7#issuecomment-1>."
    )
    told = github_references(body, VERL)
    assert told == (
        "This fixes the hang introduced here (#4280) and verl-project/verl-omni#12, see issue #7."
    )
    # a repository that moved keeps its earlier name's links as its own
    moved = github_references(body, ("verl-project/verl", "volcengine/verl"))
    assert "(#4280)" in moved
    # not knowing the repository, every link names its repository
    assert "volcengine/verl#4280" in github_references(body)
    assert clean_text(body, VERL) == told


def test_a_body_stating_what_broke_keeps_the_pr_it_names() -> None:
    body = (
        "### What does this PR do?\n\n"
        "https://github.com/volcengine/verl/pull/4280 broke one-step-off-policy and fully-async;"
        " this PR repairs them."
    )
    [line] = summary_lines(body, repos=VERL)
    assert line.startswith("#4280 broke one-step-off-policy")


def test_every_recorded_body_link_to_a_pr_is_told_as_a_reference() -> None:
    for label in ("2025-W47", "2025-W48", "2026-W03", "2026-W04"):
        for pr in load_week(label).prs:
            for line in summary_lines(pr.body, 40, VERL):
                assert "github.com" not in line, (label, pr.number, line)


# --- 2. a later PR of the week that rewrites lines an earlier one added supersedes it --------


def test_a_pr_rewriting_lines_another_added_this_week_supersedes_it() -> None:
    """#4280 takes out the `if max_model_len is None` guard #5018 added two days before (to
    keep users' settings): a sentence telling #5018's guard as the week's outcome is wrong."""
    digest = week_digest("2026-W04")
    assert [(r.pr, r.other, r.kind) for r in digest.relations] == [
        (4280, 5018, RelationKind.SUPERSEDES)
    ]
    payload = facts_payload(week_facts("2026-W04"))
    assert listed(payload, 4280)["relations"] == ["supersedes #5018"]
    assert listed(payload, 5018)["relations"] == ["superseded_by #4280"]
    evidence = week_facts("2026-W04").evidence
    assert evidence is not None
    assert evidence.related(4280, 5018) == {"supersedes"}


def test_supersedes_is_told_beside_the_follow_up_relations() -> None:
    facts = week_facts("2025-W48")
    fix = facts.pr(4265)
    assert fix is not None
    assert [(r.kind, r.other) for r in fix.relations] == [
        ("reworks", 4254),
        ("supersedes", 4254),
    ]
    later, earlier = facts.pr(4289), facts.pr(4175)
    assert later is not None
    assert earlier is not None
    assert [(r.kind, r.other) for r in later.relations] == [("supersedes", 4175)]
    assert [(r.kind, r.other) for r in earlier.relations] == [("superseded_by", 4289)]


def test_the_report_tells_what_supersedes_what(verl_profile: RepoProfile) -> None:
    for language, told in (("en", "it rewrites code [#5018]"), ("zh", "它改写了本周 [#5018]")):
        digest = build_digest(load_week("2026-W04"), verl_profile, language=language, now=NOW)
        [line] = [t for t in render_markdown(digest).splitlines() if t.startswith("- [#4280]")]
        assert told in line, language


# --- 3. totals name what they count and agree with the lists --------------------------------


@pytest.mark.parametrize("label", WEEK_LABELS)
def test_totals_agree_with_the_lists_they_count(label: str) -> None:
    facts = week_facts(label)
    payload = facts_payload(facts)
    totals = payload["totals"]
    risks = payload["risks"]
    assert totals["risk_groups"] == len(risks) + payload.get("more_risks", 0)
    assert totals["risk_groups"] == len(risk_groups(week_digest(label).risks))
    assert totals["risk_findings"] == sum(g["findings"] for g in risks)
    by_severity = [totals[f"risk_findings_{s}"] for s in ("high", "medium", "low")]
    assert totals["risk_findings"] == sum(by_severity)
    for group in risks:
        assert (
            sum(g["findings"] for g in risks if g["severity"] == group["severity"])
            == (totals[f"risk_findings_{group['severity']}"])
        )
    assert totals["breaking_prs"] == sum(1 for p in facts.prs if p.breaking)
    assert totals["prs"] == len(facts.prs) == len(payload["prs"]) + len(payload["more_prs"])
    assert totals["contributors"] == len(week_digest(label).trends.contributors)
    trends = payload["trends"]
    for name in ("categories", "types"):  # each PR has one category and one type
        if f"more_{name}" not in trends:
            assert sum(b["count"] for b in trends[name]) == totals["prs"], name
    for buckets in (trends[name] for name in ("modules", "categories", "types")):
        for b in buckets:
            assert b["count"] == len(b["prs"]) + b.get("more_prs", 0)


def test_the_earlier_week_totals_use_the_same_names() -> None:
    before = week_digest("2026-W03")
    digest = week_digest("2026-W04").model_copy(deep=True)
    digest.trends.previous_stats, digest.trends.previous_period = before.stats, before.period
    facts = build_facts(digest, load_week("2026-W04").prs)
    assert facts.earlier is not None
    shared = set(facts.earlier.totals) & set(facts.totals)
    assert {"prs", "contributors", "risk_findings", "risk_findings_high"} <= shared
    assert "risks_high" not in facts.earlier.totals


# --- 4. every list cut for the budget says how many more there are --------------------------


def _bigger(pr: PullRequest) -> PullRequest:
    """A real PR with more failing checks and unresolved threads than the prompt shows."""
    checks = [Check(name=f"e2e_{i}", state="FAILURE") for i in range(CHECKS_SHOWN + 2)]
    threads = [
        ReviewThread(path="verl/a.py", body=f"please keep the old default here ({i})")
        for i in range(REVIEW_NOTES + 4)
    ]
    return pr.model_copy(update={"failing_checks": checks, "unresolved_threads": threads})


def test_each_cut_list_of_a_pr_says_how_many_more() -> None:
    week = load_week("2026-W04")
    prs = [_bigger(p) if p.number == 4280 else p for p in week.prs]
    facts = build_facts(week_digest("2026-W04"), prs)
    shown = listed(facts_payload(facts), 4280)
    pr = facts.pr(4280)
    assert pr is not None
    assert len(shown["failing_checks"]) + shown["more_failing_checks"] == CHECKS_SHOWN + 2
    assert len(shown["review_notes"]) + shown["more_review_notes"] == REVIEW_NOTES + 4
    assert len(shown["summary"]) + shown["more_summary"] == len(pr.summary)
    assert len(shown["paths"]) + shown["more_paths"] == len(pr.paths)
    config = shown["config_changes"]
    assert len(config) + shown.get("more_config_changes", 0) == len(pr.config)


@pytest.mark.slow
def test_a_2000_pr_week_says_how_many_more_of_every_list() -> None:
    week = huge_week(2000)
    facts = build_facts(digest_from_week(week, language="zh"), week.prs)
    payload = trimmed_payload(facts, DATA_BUDGET // 2)
    for shown in payload["prs"]:
        pr = facts.pr(shown["number"])
        assert pr is not None
        for name, full in (
            ("summary", pr.summary),
            ("paths", pr.paths),
            ("relations", pr.relations),
            ("risks", pr.risks),
        ):
            assert len(shown.get(name, [])) + shown.get(f"more_{name}", 0) == len(full), name
    for group, (_kind, _severity, prs) in zip(payload["risks"], facts.risks, strict=False):
        assert len(group["prs"]) + group.get("more_prs", 0) == len(prs)
    assert len(payload["risks"]) + payload.get("more_risks", 0) == len(facts.risks)
    for name, buckets in facts.trends.items():
        more = payload["trends"].get(f"more_{name}", 0)
        assert len(payload["trends"].get(name, [])) + more == len(buckets) + more
        assert more == facts.more_buckets.get(name, 0)
    listed_lines = len(payload["more_prs"])
    assert listed_lines + payload["prs_not_listed"] + len(payload["prs"]) == 2000


# --- 5. a breaking flag and a breaking risk never disagree ----------------------------------


def _breaking_risks(digest: Digest) -> set[int]:
    return {n for r in leaf_risks(digest.risks) if r.kind == RiskKind.BREAKING for n in r.prs}


@pytest.mark.parametrize("label", WEEK_LABELS)
def test_the_breaking_flag_is_the_breaking_risk(label: str) -> None:
    """W04's #4320, #4931, #5019, #5033 (and W48's #4211, #4352 …) had a breaking risk found
    in the diff but `breaking: false`."""
    digest = week_digest(label)
    assert {p.number for p in digest.prs if p.breaking} == _breaking_risks(digest)
    facts = week_facts(label)
    for pr in facts.prs:
        assert pr.breaking == any(r.kind == "breaking" for r in pr.risks), pr.number
    for shown in facts_payload(facts)["prs"]:
        kinds = [r["kind"] for r in shown.get("risks", [])]
        assert shown["breaking"] == ("breaking" in kinds), shown["number"]


def test_a_breaking_label_or_a_breaking_revert_agree_with_the_risks() -> None:
    week = load_week("2026-W04")
    changed = []
    for pr in week.prs:
        if pr.number == 5006:  # a version bump, labelled breaking
            pr = pr.model_copy(update={"labels": ["breaking"]})
        if pr.number == 4970:  # a revert whose reverted title was declared breaking
            pr = pr.model_copy(update={"title": 'Revert "[BREAKING][data] feat: x"'})
        changed.append(pr)
    digest = digest_from_week(week.model_copy(update={"prs": changed}))
    flagged = {p.number for p in digest.prs if p.breaking}
    assert flagged == _breaking_risks(digest)
    assert 5006 in flagged
    assert 4970 not in flagged


# --- 6. authors the data cannot name are not one contributor --------------------------------


def test_unknown_and_ghost_authors_are_counted_apart() -> None:
    week = load_week("2026-W04")
    nameless = {4280: None, 5018: "", 4969: "ghost", 4665: "Ghost"}
    prs = [
        p.model_copy(update={"author": nameless[p.number], "author_name": None})
        if p.number in nameless
        else p
        for p in week.prs
    ]
    named = {identity(p.author, p.author_name) for p in prs if p.number not in nameless}
    digest = digest_from_week(week.model_copy(update={"prs": prs}))
    assert digest.stats.contributors == len(named)
    assert digest.stats.unknown_authors == len(nameless)
    logins = [c.login.lower() for c in digest.trends.contributors]
    assert "ghost" not in logins
    assert "" not in logins
    assert sum(len(c.prs) for c in digest.trends.contributors) == len(prs) - len(nameless)
    totals = build_facts(digest, prs).totals
    assert totals["contributors"] == len(named)
    assert totals["prs_by_unknown_authors"] == len(nameless)
    evidence = build_facts(digest, prs).evidence
    assert evidence is not None
    ghost = evidence.pr(4969)
    assert ghost is not None
    assert "ghost" not in ghost.author


def test_approvals_by_reviewers_the_data_cannot_name_count_apart() -> None:
    week = load_week("2026-W04")
    reviews = [
        Review(state=ReviewState.APPROVED, author=None),
        Review(state=ReviewState.APPROVED, author="ghost"),
        Review(state=ReviewState.APPROVED, author="alice"),
        Review(state=ReviewState.APPROVED, author="alice"),
    ]
    prs = [p.model_copy(update={"reviews": reviews}) if p.number == 4280 else p for p in week.prs]
    pr = build_facts(week_digest("2026-W04"), prs).pr(4280)
    assert pr is not None
    assert pr.approvals == 3


def test_a_moved_repositorys_weeks_tell_their_own_links_as_numbers_and_forks_by_name() -> None:
    """verl-project/verl's recorded weeks link to their own PRs, to NVIDIA's repositories and
    to a fork (Liquid4All/verl): only their own become a bare `#N`."""
    told: list[str] = []
    for path in sorted((WEEKS / "verl-project").glob("verl.*.json")):
        week = load_recorded(path, NOW)
        for pr in week.prs:
            told += [line for line in summary_lines(pr.body, 40, (week.repo,)) if "#" in line]
    assert told
    assert not any("github.com" in line for line in told)
    assert not any("verl-project/verl#" in line for line in told)
    assert any("Liquid4All/verl#" in line for line in told)
    assert any("NVIDIA-NeMo/Megatron-Bridge#" in line for line in told)


def test_two_authors_behind_one_placeholder_login_are_two_contributors() -> None:
    # 2026-W21: git history could not name the accounts of #6335 (ℍ𝕠𝕝𝕝𝕠𝕨 𝕄𝕒𝕟) and #6453
    # (鐘天楽); served as GitHub serves such data, both come as the login `unknown`, and a
    # reader of the raw data counts 28 people
    week = load_recorded(WEEKS / "verl-project" / "verl.2026-W21.json", NOW)
    served = [
        p.model_copy(update={"author": "unknown"}) if p.number in (6335, 6453) else p
        for p in week.prs
    ]
    digest = digest_from_week(week.model_copy(update={"prs": served}))
    assert digest.stats.contributors == 28
    assert digest.stats.unknown_authors == 0
    assert build_facts(digest, served).totals["contributors"] == 28
    shown = {c.login: c.prs for c in digest.trends.contributors}
    assert "unknown" not in shown  # each is shown by the name the data gives, as two people
    assert (shown["ℍ𝕠𝕝𝕝𝕠𝕨 𝕄𝕒𝕟"], shown["鐘天楽"]) == ([6335], [6453])
