"""Points from what the PR says (issue 18, part 1): structured bodies are read past the PR
template's boilerplate, lists become clause lists, and a PR whose body says nothing is told by
its title's description, never by a file listing when the title says what it does."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.core.gists import GIST_MAX_CHARS, adds_to_title, gist_of, title_point
from service.core.models import PullRequest, ScoredPR, Statement
from tests.conftest import load_week

WEEKS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")
ALL = {pr.number: pr for label in WEEKS for pr in load_week(label).prs}
WHEN = datetime(2026, 1, 20, tzinfo=UTC)
TEMPLATE_HINT = (
    "> Add **concise** overview of what this PR aims to achieve or\n"
    "accomplish. Reference related GitHub issues and PRs that help with the\nreview.\n"
)
CHECKLIST = (
    "### Checklist Before Starting\n\n- [x] Search for similar PRs. Paste at least one query "
    "link here: ...\n- [x] Format the PR title as `[{modules}] {type}: {description}`\n"
    "- `{modules}` include `fsdp`, `megatron`, `sglang`, `vllm`, `rollout`,\n`trainer`, `ci`\n"
)


def _pr(body: str, title: str = "[trainer] feat: something new") -> PullRequest:
    return PullRequest(number=1, title=title, body=body, created_at=WHEN, merged_at=WHEN)


@pytest.mark.parametrize(
    ("number", "point"),
    [
        # the real text follows the template's hint in the same block quote
        (
            3427,
            "This recipe is a training example based on the Deepseek-V3-Base model after RLHF…",
        ),
        # a heading inside the answer: the section under it says what the PR does
        (
            3918,
            "This recipe introduces experimental support for training SimpleVLA-OFT, a VLA model",
        ),
        # no template: a guide whose first paragraph after its headings and byline says it
        (4936, "Currently, RL training can be performed on mimo-7B-RL, Qwen-next…"),
        # a `Summary` label over a list, after a bibtex block and a bare link
        (
            4544,
            "Add K1/K3 KL divergence estimators and modify token veto mechanism for rollout"
            " correction",
        ),
        # the answer is under the template's "API and Usage Example" heading
        (4139, "For Megatron dist checkpoint using customized prefix for state dict keys…"),
        # a list: its items as clauses
        (4171, "Fix links to Qwen blog; Fix GSM8K score for Qwen2.5-0.5B-Instruct…"),
        # "As title," before the sentence that says more
        (
            4210,
            "move `hf_transfer` dependency in e2e_ascend into `requirements-npu.txt`, and `peft`"
            " has already been in there",
        ),
        (5002, "This PR fixes an AttributeError when using FSDP2 with PyTorch 2.4/2.5…"),
    ],
)
def test_structured_bodies_give_what_the_pr_does(number: int, point: str) -> None:
    gist = gist_of(ALL[number])
    assert gist == point
    assert len(gist) <= GIST_MAX_CHARS + 1


def test_a_title_cut_by_github_is_not_read_as_the_body() -> None:
    """#4910's body starts with the rest of its cut title ("…fload=True' Or add …"), then an
    empty template: nothing of its own."""
    assert ALL[4910].body.startswith("…")
    assert gist_of(ALL[4910]) == ""


def test_a_template_only_body_says_nothing() -> None:
    body = f"### What does this PR do?\n\n{TEMPLATE_HINT}\n{CHECKLIST}\n### Test\n\n> For changes"
    assert gist_of(_pr(body)) == ""


def test_a_block_quote_of_the_author_is_read() -> None:
    body = (
        "### What does this PR do?\n\n> Adds a retry budget to the reward loop so that API"
        " rewards survive rate limits.\n\n" + CHECKLIST
    )
    assert gist_of(_pr(body)) == (
        "Adds a retry budget to the reward loop so that API rewards survive rate limits"
    )


def test_key_changes_section_becomes_a_clause_list() -> None:
    body = (
        "## Overview\n\nKey changes:\n- Move the rollout config under `actor_rollout_ref`\n"
        "- Default `free_cache_engine` to true\n- Drop the legacy worker\n\n" + CHECKLIST
    )
    assert gist_of(_pr(body)) == (
        "Move the rollout config under `actor_rollout_ref`; Default `free_cache_engine` to true;"
        " Drop the legacy worker"
    )


def test_checklist_items_are_never_a_point() -> None:
    body = "## Design & Code Changes\n\n- [x] Read the Contribute Guide and apply the checks.\n"
    assert gist_of(_pr(body)) == ""


@pytest.mark.parametrize(
    ("title", "point"),
    [
        (
            "[megatron] feat: LoRA adapter only refit (TensorLoRARequest)",
            "LoRA adapter only refit (TensorLoRARequest)",
        ),
        ("[BREAKING][worker, rollout] feat: move X to Y.", "move X to Y"),
        (
            'Revert "[megatron] fix: BF16 mode should use PAO as well"',
            'Revert "[megatron] fix: BF16 mode should use PAO as well"',
        ),
    ],
)
def test_the_title_point_drops_the_modules_and_type(title: str, point: str) -> None:
    assert title_point(title) == point


def _scored(title: str, key: str, path: str = "") -> ScoredPR:
    params: dict[str, str | int | float | list[int] | list[str]] = {"folder": "verl/utils/"}
    if path:
        params["path"] = path
    return ScoredPR(
        number=1,
        title=title,
        url="",
        merged_at=WHEN,
        files_gist=Statement(key=key, params=params),
    )


def test_files_add_to_the_title_only_when_they_say_something_new() -> None:
    # a folder is no point; a file the title already names adds nothing
    assert not adds_to_title(_scored("[megatron] feat: LoRA refit", "narrative.files.many"))
    mtp = _scored(
        "[megatron] feat: Using MTP in RL Training",
        "narrative.files.many_added",
        "verl/models/mcore/mtp_patch.py",
    )
    assert not adds_to_title(mtp)
    other = _scored(
        "[ci] fix: fix ci", "narrative.files.one_changed", "tests/checkpoint_engine/test_hccl.py"
    )
    assert adds_to_title(other)
