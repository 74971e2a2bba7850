"""The changed lines the prompt shows per PR: the telling ones (settings, defaults, signatures,
version pins) of non-test files, with their side, never a secret or a link."""

from __future__ import annotations

from service.core.analyst.facts import DETAILED_PRS, LINES_AFTER, facts_payload
from service.core.analyst.telling_lines import LINES_KEPT, telling_lines
from service.core.models import FileChange, PullRequest
from tests.conftest import load_week
from tests.core.analyst.helpers import week_facts


def _pr(*files: FileChange) -> PullRequest:
    week = load_week("2026-W04")
    return week.prs[0].model_copy(update={"files": list(files)})


def test_a_changed_default_shows_both_sides_of_a_real_week() -> None:
    facts = week_facts("2025-W47")
    server = facts.pr(4106)  # rollout.yaml `mode: sync` → `mode: async`
    assert server is not None
    assert "+verl/trainer/config/rollout/rollout.yaml: mode: async" in server.lines
    assert "-verl/trainer/config/rollout/rollout.yaml: mode: sync" in server.lines
    pins = facts.pr(4233)
    assert pins is not None
    assert "+.github/workflows/reward_model_sglang.yml: pip3 install sglang-router==0.2.2" in (
        pins.lines
    )


def test_tests_secrets_links_and_plain_code_are_not_shown() -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    patch = "\n".join(
        [
            "@@ -1,3 +1,6 @@ class TrainerConfig:",
            "+    lr: float = 1e-6",
            f'+    token: str = "{token}"',
            '+    url: str = "https://evil.example/x"',
            "+    x = compute(y)",
            "-    lr: float = 1e-5",
        ]
    )
    pr = _pr(
        FileChange(path="verl/config.py", patch=patch),
        FileChange(path="tests/test_config.py", patch="+    lr: float = 9.0"),
    )
    assert telling_lines(pr) == (
        "+verl/config.py: lr: float = 1e-6",
        "-verl/config.py: lr: float = 1e-5",
    )


def test_the_top_prs_show_more_changed_lines_than_the_others() -> None:
    payload = facts_payload(week_facts())
    top, rest = payload["prs"][:DETAILED_PRS], payload["prs"][DETAILED_PRS:]
    assert max(len(p.get("lines", [])) for p in top) == LINES_KEPT
    assert all(len(p.get("lines", [])) <= LINES_AFTER for p in rest)
    assert all(line[0] in "+-" for p in payload["prs"] for line in p.get("lines", []))
