"""Any title, body and patch goes through every detector without crashing (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.core.models import FileStatus, PullRequest
from service.core.profile import RepoProfile, load_profile
from service.core.ranking import SEVERITY_RANK
from service.core.risks import detect_risks
from service.core.risks.base import SNIPPET_MAX
from tests.core.risks.helpers import change, make_pr

PATHS = st.sampled_from(
    [
        "docs/a.md",
        "examples/run.sh",
        "scripts/x.bash",
        "verl/trainer/ppo/ray_trainer.py",
        "verl/workers/__init__.py",
        "recipe/a/README.md",
        ".github/workflows/ci.yml",
    ]
)
LINE = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\n\r"), max_size=300)
PATCH_LINE = st.one_of(
    st.builds(lambda sign, text: sign + text, st.sampled_from(["+", "-", " ", "\\", ""]), LINE),
    st.builds(lambda a, b, c, d: f"@@ -{a},{b} +{c},{d} @@", *(st.integers(0, 999),) * 4),
    st.sampled_from(
        [
            "+rm -rf $X/",
            "+pkill -9 python",
            "+echo $undefined_var",
            "-def public_api(x):",
            "+x = torch.bfloat16",
            "+#!/bin/bash",
        ]
    ),
)
FILES = st.lists(
    st.builds(
        lambda path, status, lines: change(path, "\n".join(lines) or None, status),
        PATHS,
        st.sampled_from(list(FileStatus)),
        st.lists(PATCH_LINE, max_size=25),
    ),
    max_size=5,
)
TITLES = st.one_of(LINE, st.sampled_from(['Revert "x"', "[BREAKING] feat: x", "fix: #1"]))


@st.composite
def pull_requests(draw: st.DrawFn) -> PullRequest:
    return make_pr(draw(st.integers(1, 99)), draw(TITLES), draw(FILES), body=draw(LINE))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(pull_requests(), max_size=4), st.lists(pull_requests(), max_size=2))
def test_detectors_accept_any_input(week: list[PullRequest], earlier: list[PullRequest]) -> None:
    profile: RepoProfile = load_profile("volcengine/verl")
    risks = detect_risks(week, profile, earlier=earlier, references={"a": ["b"]})
    order = [(SEVERITY_RANK[r.severity], r.prs[0]) for r in risks]
    assert order == sorted(order)
    for risk in risks:
        assert all(len(found.snippet) <= SNIPPET_MAX for found in risk.evidence)
