"""Issue 26 §4: the model is given the facts it needs, faithfully — links to PRs and issues
told as references (never stripped), relations, totals that agree with the lists, cut lists
that say how many more there are, breaking flags that agree with breaking risks, and authors
the data cannot name kept apart."""

from __future__ import annotations

import pytest

from service.core.analyst.body import github_references, summary_lines
from service.core.analyst.facts import clean_text
from tests.conftest import load_week
from tests.core.analyst.helpers import week_facts

VERL = ("volcengine/verl",)


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
