"""gist_of and files_gist on the real bodies of the recorded verl weeks: never cut mid-word or
inside parentheses or code, no markup, links or citation artefacts, never the title again."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.core.gists import (
    ELLIPSIS,
    GIST_MAX_CHARS,
    OPENERS,
    SENTENCE,
    WORD,
    boundaries,
    files_gist,
    gist_of,
    says_nothing,
    shorten,
)
from service.core.models import FileChange, FileStatus, PullRequest
from service.core.titles import parse_title
from tests.conftest import load_week

WEEKS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")
WHEN = datetime(2026, 1, 20, tzinfo=UTC)
ALL = [pr for label in WEEKS for pr in load_week(label).prs]
WORD_RE = re.compile(r"\w+")


def _real(number: int) -> PullRequest:
    return next(p for p in ALL if p.number == number)


def _balanced(text: str) -> bool:
    depth: list[str] = []
    for ch in text.replace("`", ""):
        if ch in OPENERS:
            depth.append(OPENERS[ch])
        elif depth and ch == depth[-1]:
            depth.pop()
        elif ch in OPENERS.values():
            return False
    return not depth and text.count("`") % 2 == 0


# --- the rules on real bodies -------------------------------------------------------------


def test_a_cut_never_falls_inside_parentheses() -> None:
    # the body: "… beyond mcore 0.12 (tested and support\nup to 0.16:\nhttps://github.com/…)"
    assert gist_of(_real(4931)) == (
        "Current patch_v012.py should apply beyond mcore 0.12 (tested and support up to 0.16)"
    )


def test_citation_artefacts_are_stripped() -> None:
    assert "[web:69]" in _real(4998).body
    assert gist_of(_real(4998)) == (
        "The goal of this PR is to make the GSM8K multiturn tool quickstart actually work"
    )


def test_code_spans_are_kept_whole_and_an_ellipsis_inside_them_ends_nothing() -> None:
    # "Fixes `ValueError: TensorDict conversion only supports... Got <class\n'list'>` when …"
    gist = gist_of(_real(4296))
    assert gist.startswith(
        "Fixes `ValueError: TensorDict conversion only supports... Got <class 'list'>` when"
    )
    assert gist.endswith(ELLIPSIS)
    assert _balanced(gist.removesuffix(ELLIPSIS))


def test_links_to_issues_read_as_their_number_and_other_urls_go() -> None:
    gist = gist_of(_real(4156))  # "Fix problem in https://github.com/volcengine/verl/issues/3457"
    assert gist.startswith("Fix problem in #3457 When resuming training")
    assert gist.endswith("restart from" + ELLIPSIS)  # cut at the sentence end
    assert "http" not in gist_of(_real(4221))


def test_images_html_and_emphasis_markup_are_dropped() -> None:
    gist = gist_of(_real(4944))
    assert gist.startswith("fix user_trainer_do_validate=True run megatron+VLLM process error")
    assert "<img" not in gist
    assert "*" not in gist_of(_real(4967))  # "a device *module*"


def test_a_fenced_block_ends_the_paragraph() -> None:
    # "To prevent device mismatch for:" then a ```log block with a traceback
    assert gist_of(_real(4962)) == "To prevent device mismatch for" + ELLIPSIS


def test_the_template_hint_and_bold_headings_are_skipped() -> None:
    gist = gist_of(_real(4063))  # the section opens with "> Add **concise** overview …"
    assert gist.startswith("This PR aims to add LoRA/PEFT support by integrating Megatron-Bridge")
    assert gist_of(_real(4320)).startswith("This PR enhances the verl profiling system")


def test_the_sentence_saying_what_this_pr_does_wins() -> None:
    # 4665's paragraph opens with context ("TensorRT-LLM has recently added …")
    assert (
        gist_of(_real(4665)) == "This PR introduces TensorRT-LLM as a new rollout engine for VeRL"
    )


@pytest.mark.parametrize(
    ("number", "why"),
    [
        (5022, "the section says `As title`"),
        (4884, "the section says `As title`"),
        (4151, "the section repeats the title"),
        (4632, "the section holds only images"),
        (4943, "the section says `as title` and echoes the template's hint"),
        (4870, "an empty body"),
        (5033, "a note too short to say anything: `test with Qwen3-30B-A3B-Instruct.`"),
    ],
)
def test_a_body_that_says_nothing_gives_no_gist(number: int, why: str) -> None:
    assert gist_of(_real(number)) == "", why


def test_what_the_files_show_instead() -> None:
    ci = files_gist(_real(5022))  # "[ci] fix: fix ci"
    assert ci is not None
    assert (ci.key, ci.params) == (
        "narrative.files.many_added",
        {
            "count": 3,
            "folder": "tests/checkpoint_engine/",
            "path": "tests/checkpoint_engine/__init__.py",
        },
    )
    one = files_gist(_real(4884))
    assert one is not None
    assert (one.key, one.params) == ("narrative.files.one_changed", {"path": "README.md"})
    added = files_gist(_real(4878))
    assert added is not None
    assert added.key == "narrative.files.one_added"
    assert files_gist(_real(4884).model_copy(update={"files": []})) is None


@pytest.mark.parametrize("pr", ALL, ids=lambda p: str(p.number))
def test_every_real_gist_is_clean_and_says_more_than_the_title(pr: PullRequest) -> None:
    gist = gist_of(pr)
    if not gist:
        assert files_gist(pr) is not None or not pr.files
        return
    assert len(gist) <= GIST_MAX_CHARS
    assert "\n" not in gist
    for artefact in ("http", "www.", "[web:", "![", "](", "<img", "<!--", "**"):
        assert artefact not in gist, artefact
    assert _balanced(gist.removesuffix(ELLIPSIS))
    assert not says_nothing(gist, pr.title)
    description = parse_title(pr.title).description.lower()
    assert gist.lower() != description
    if gist.endswith(ELLIPSIS):  # cut at a boundary: the word before the cut is whole in the body
        words = WORD_RE.findall(gist.removesuffix(ELLIPSIS))
        assert words
        assert re.search(rf"\b{re.escape(words[-1])}\b", pr.body)


# --- cutting, on any text ---------------------------------------------------------------------


def test_shorten_prefers_a_sentence_then_a_clause_then_a_space() -> None:
    sentence = "First sentence is long enough to stand alone here. " + "x " * 80
    assert shorten(sentence, 80) == "First sentence is long enough to stand alone here" + ELLIPSIS
    clause = "A clause that runs on and on, with a comma, and " + "words " * 30
    assert shorten(clause, 80) == "A clause that runs on and on, with a comma" + ELLIPSIS
    words = "word " * 40
    assert shorten(words, 30) == "word word word word word word" + ELLIPSIS


def test_shorten_never_cuts_inside_parentheses_or_code() -> None:
    text = "Short lead (" + "inside the parenthesis, with clauses; " * 5 + ") and after it, more"
    cut = shorten(text, 80)
    assert cut == "Short lead" + ELLIPSIS
    code = "Call `a.b(c, d). e; f` then " + "go " * 40
    assert "`a.b(c, d). e; f`" in shorten(code, 60)


def test_boundaries_skip_parentheses_code_and_ellipses() -> None:
    text = "a (b. c) `d. e` f... g. h"
    ends: dict[str, int] = {}
    for i, strength in boundaries(text):
        ends[text[:i]] = max(strength, ends.get(text[:i], strength))
    assert "a (b" not in ends
    assert "a (b." not in ends
    assert "a (b. c) `d." not in ends
    assert ends["a (b. c) `d. e` f..."] == WORD  # a space, not a sentence end
    assert ends["a (b. c) `d. e` f... g."] == SENTENCE


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab cd,.;:()`!?\n")), max_size=400))
def test_any_cut_is_a_prefix_at_a_boundary_with_balanced_brackets(text: str) -> None:
    line = " ".join(text.split())
    cut = shorten(line, 60)
    assert len(cut) <= 60
    if cut.endswith(ELLIPSIS):
        kept = cut.removesuffix(ELLIPSIS)
        assert line.startswith(kept)
        rest = line[len(kept) :]
        assert not rest or not (kept[-1:].isalnum() and rest[:1].isalnum()) or len(kept) >= 59
        assert _balanced(kept) or not _balanced(line)  # a cut never opens what it leaves open


@settings(max_examples=300, deadline=None)
@given(title=st.text(), body=st.text())
def test_gist_of_any_body_is_one_short_line(title: str, body: str) -> None:
    pr = PullRequest(number=1, title=title, body=body, created_at=WHEN, merged_at=WHEN)
    gist = gist_of(pr)
    assert "\n" not in gist
    assert len(gist) <= GIST_MAX_CHARS


@settings(max_examples=100, deadline=None)
@given(body=st.text().map(lambda s: "### What does this PR do?\n\n" + s + "\n\n### Checklist\n- x"))
def test_gist_of_any_section_is_one_short_line(body: str) -> None:
    pr = PullRequest(number=1, title="[x] fix: y", body=body, created_at=WHEN, merged_at=WHEN)
    gist = gist_of(pr)
    assert "\n" not in gist
    assert len(gist) <= GIST_MAX_CHARS


def test_files_gist_names_the_busiest_folder_and_the_largest_added_file() -> None:
    files = [
        FileChange(path="a/x.py", additions=5),
        FileChange(path="b/y.py", additions=50),
        FileChange(path="b/new.py", status=FileStatus.ADDED, additions=40),
        FileChange(path="c/tiny.py", status=FileStatus.ADDED, additions=1),
    ]
    pr = PullRequest(number=1, title="t", created_at=WHEN, merged_at=WHEN, files=files)
    gist = files_gist(pr)
    assert gist is not None
    assert gist.params == {"count": 4, "folder": "b/", "path": "b/new.py"}
