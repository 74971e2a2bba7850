"""Every filter key on every read command, through the real web app (signed slash commands to
POST /slack/events, and a Feishu message): the answer names its filter and holds the PRs the
recorded week says match, with its own figures."""

from __future__ import annotations

import re
from typing import Any

import pytest

from service.core.models import Digest
from tests.channels.conftest import REPO, WEEK, Wired, card_text, pr_numbers
from tests.periods import period

# key → (the filter as typed, the matching PRs of 2026-W04, most important first)
VLLM_ROLLOUT = [4280, 4936, 4320, 4632, 4976, 4969, 5018]
FILTERS: dict[str, tuple[str, list[int]]] = {
    "module": ("module:megatron", [4936, 4632, 4931, 4944]),
    "label": ("label:npu", [4885, 4938]),
    "path": ("path:verl/workers/rollout/vllm_rollout/**", VLLM_ROLLOUT),
    "author": ("author:Huazhong", [5033, 5018]),
    # #5019 changes a default (moe_implementation: eager → fused): a medium breaking item
    "severity": ("severity:medium", [4280, 4936, 5033, 4320, 4931, 5019]),
}


def blocks_text(answer: dict[str, Any], kind: str) -> str:
    return " ".join(card_text(b) for b in answer["blocks"] if b["type"] == kind)


def filter_line(answer: dict[str, Any]) -> str:
    lines = [b for b in answer["blocks"] if b["type"] == "context" and "Filter:" in card_text(b)]
    assert len(lines) == 1, answer
    return card_text(lines[0])


def stored(built: Wired) -> Digest:
    digest = built.pipeline.store.get_digest(REPO, period(WEEK), "zh")
    assert digest is not None
    return digest


def week_prs(built: Wired, text: str) -> list[int]:
    """The PRs of the week an answer names, in order (gists also cite older PRs: not these)."""
    numbers = {p.number for p in stored(built).prs}
    return [n for n in pr_numbers(text) if n in numbers]


@pytest.mark.parametrize("key", FILTERS)
def test_top(built: Wired, key: str) -> None:
    typed, expected = FILTERS[key]
    answer = built.slash(f"top 10 {WEEK} {typed}")
    assert typed in filter_line(answer)
    assert week_prs(built, blocks_text(answer, "section")) == expected


@pytest.mark.parametrize("key", FILTERS)
def test_risks(built: Wired, key: str) -> None:
    typed, expected = FILTERS[key]
    answer = built.slash(f"risks {WEEK} {typed}")
    assert typed in filter_line(answer)
    named = set(week_prs(built, blocks_text(answer, "section")))
    risky = {n for r in stored(built).risks for n in r.prs if n in expected}
    if key == "severity":  # medium and up only: the low risks of these PRs stay out
        risky = {n for r in stored(built).risks if r.severity != "low" for n in r.prs}
    assert named == risky


@pytest.mark.parametrize("key", FILTERS)
def test_summary(built: Wired, key: str) -> None:
    typed, expected = FILTERS[key]
    answer = built.slash(f"summary {WEEK} {typed}")
    assert typed in filter_line(answer)
    text = blocks_text(answer, "section")
    assert set(week_prs(built, text)) <= set(expected)
    assert re.search(rf"\b{len(expected)} (merged )?PRs?\b", text), text


@pytest.mark.parametrize("key", FILTERS)
def test_trends(built: Wired, key: str) -> None:
    typed, expected = FILTERS[key]
    answer = built.slash(f"trends {WEEK} {typed}")
    assert typed in filter_line(answer)
    modules_block = next(
        b for b in answer["blocks"] if b["type"] == "section" and "`" in b["text"]["text"]
    )
    shown = re.findall(r"`([^`]+)` \S+ (\d+)", modules_block["text"]["text"])
    counts: dict[str, int] = {}
    for pr in stored(built).prs:
        if pr.number in expected:
            for module in pr.modules:
                counts[module] = counts.get(module, 0) + 1
    assert {name: int(count) for name, count in shown} == counts


@pytest.mark.parametrize("key", FILTERS)
def test_week(built: Wired, key: str) -> None:
    typed, expected = FILTERS[key]
    answer = built.slash(f"week {WEEK} {typed}")
    assert typed in filter_line(answer)
    text = card_text(answer["blocks"])
    named = week_prs(built, text)
    assert set(named) <= set(expected)
    assert set(expected[:5]) <= set(named)  # the card's top PRs


@pytest.mark.parametrize("key", FILTERS)
def test_pr(built: Wired, key: str) -> None:
    typed, expected = FILTERS[key]
    inside = built.slash(f"pr {expected[0]} {typed}")
    assert typed in filter_line(inside)
    assert f"#{expected[0]}" in card_text(inside["blocks"])
    outside = next(p.number for p in stored(built).prs if p.number not in expected)
    refused = built.slash(f"pr {outside} {typed}")
    assert f"#{outside}" in refused["text"]
    assert "does not match" in refused["text"]


def test_keys_combine(built: Wired) -> None:
    answer = built.slash(f"top 10 {WEEK} module:rollout author:Huazhong")
    assert "module:rollout author:Huazhong" in filter_line(answer)
    assert week_prs(built, blocks_text(answer, "section")) == [5018]


def test_a_filter_that_matches_nothing_says_so(built: Wired) -> None:
    answer = built.slash(f"top {WEEK} module:megatron author:Huazhong")
    assert answer["text"] == (f"No PR of {REPO} {WEEK} matches `module:megatron author:Huazhong`.")
    # a module verl's profile knows, but no PR of the week has
    assert "matches `module:sft`" in built.slash(f"summary {WEEK} module:sft")["text"]


def test_module_aliases_of_the_profile_apply(built: Wired) -> None:
    """verl's profile maps `npu` to `hardware`, the module the `npu` label gives 4885, 4938."""
    answer = built.slash(f"top 10 {WEEK} module:npu")
    assert "module:hardware" in filter_line(answer)
    assert week_prs(built, blocks_text(answer, "section")) == [4885, 4938]


@pytest.mark.parametrize("typed", ["colour:red", "module:nosuchthing"])
def test_an_unknown_key_or_module_answers_the_keys_and_the_week_modules(
    built: Wired, typed: str
) -> None:
    answer = built.slash(f"risks {typed}")
    text = card_text(answer["blocks"])
    assert typed in answer["text"]
    for key in ("module:", "label:", "path:", "author:", "severity:"):
        assert key in answer["text"]
    modules = {m for p in stored(built).prs for m in p.modules}
    for module in modules:
        assert module in answer["text"]
    assert "`risks [week]" in text  # the usage of the verb
    assert "Filters:" in text


def test_feishu_takes_the_same_filters(built: Wired) -> None:
    card = built.feishu_say(f"top 10 {WEEK} author:Huazhong", chat_id="oc_group2")
    text = card_text(card)
    assert "Filter: author:Huazhong" in text
    assert week_prs(built, text) == [5033, 5018]
