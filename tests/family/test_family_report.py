"""A family digest read as a verl maintainer reads it, on the recorded weeks of verl-project
(tests/data/weeks/verl-project): the title names the family and its repositories in every
format, the HTML rows are anchored by reference, and the report tells each fact once."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from service.core.crossings import find_crossings
from service.core.digest import build_digest
from service.core.family import merge_family
from service.core.models import CollectedPeriod, Digest
from service.core.profile import load_profile
from service.core.scope import pr_key
from service.core.weeks import window_for
from service.pipeline.recorded import week_from_recorded
from service.render.environment import translator
from service.render.formats import render_format
from service.render.speaker import MARKDOWN, Speaker
from tests.family.conftest import FAMILY
from tests.harness import TZ

WEEKS = Path(__file__).parents[1] / "data" / "weeks" / "verl-project"
NOW = datetime(2026, 12, 1, tzinfo=UTC)
URL = "http://reports.test/r"
FORMATS = ("markdown", "html", "slack", "feishu")


def recorded(repo: str, week: str) -> CollectedPeriod:
    """A recorded week of one repository (none recorded: it merged nothing)."""
    path = WEEKS / f"{repo.rpartition('/')[2]}.{week}.json"
    if not path.exists():
        year, number = (int(x) for x in week.split("-W"))
        return CollectedPeriod(repo=repo, window=window_for(year, number, TZ), prs=[])
    data = json.loads(path.read_text("utf-8"))
    return week_from_recorded({**data, "web_url": "https://github.com"}, NOW)


def family_digest(
    week: str, repos: Sequence[str] = FAMILY, key: str = "verl-project", lang: str = "zh"
) -> Digest:
    return family_digest_of([recorded(repo, week) for repo in repos], key, lang)


def family_digest_of(
    weeks: Sequence[CollectedPeriod], key: str = "verl-project", lang: str = "zh"
) -> Digest:
    repos = [w.repo for w in weeks]
    parts = [build_digest(w, load_profile(w.repo), language=lang, now=NOW) for w in weeks]
    crossings, ties = find_crossings(repos, [w.prs for w in weeks])
    return merge_family(
        key,
        repos,
        parts,
        [w.prs for w in weeks],
        now=NOW,
        crossings=crossings,
        cross_relations=ties,
    )


def _without_values(node: object) -> object:
    if isinstance(node, dict):
        return {k: _without_values(v) for k, v in node.items() if k != "value"}
    if isinstance(node, list):
        return [_without_values(v) for v in node]
    return node


def shown(text: str, fmt: str) -> str:
    """What a reader sees: a card without its buttons' values (the digest's key, read back)."""
    if fmt in ("slack", "feishu"):
        return json.dumps(_without_values(json.loads(text)), ensure_ascii=False)
    return text


@pytest.fixture(scope="module")
def w34() -> Digest:
    return family_digest("2026-W34")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_title_names_the_family_and_its_repositories_in_every_format(lang: str) -> None:
    listed = ("verl-project/verl", "verl-project/verl-omni", "verl-project/verl-vla")
    digest = family_digest("2026-W34", listed, key="+".join(listed), lang=lang)
    named = {
        "zh": "verl-project 家族周报（verl、verl-omni、verl-vla）",
        "en": "verl-project family weekly digest (verl, verl-omni, verl-vla)",
    }[lang]
    card = {"zh": named, "en": "verl-project family weekly (verl, verl-omni, verl-vla)"}[lang]
    for fmt in FORMATS:
        text = render_format(digest, fmt, lang, report_url=URL)
        assert (named if fmt in ("markdown", "html") else card) in text, fmt
        assert "verl-project/verl+" not in shown(text, fmt), fmt
    markdown = render_format(digest, "markdown", lang, report_url=URL)
    assert markdown.startswith(f"# {named}")


def test_html_rows_are_anchored_by_reference_not_by_family_key(w34: Digest) -> None:
    html = render_format(w34, "html", "en", report_url=URL)
    assert '<tr id="verl-omni-373">' in html
    assert '<tr id="pr-7127">' in html
    assert 'id="pr-1000' not in html


OMNI = "https://github.com/verl-project/verl-omni/pull/"


def test_a_bare_reference_in_another_repositorys_pr_links_to_that_repository(w34: Digest) -> None:
    # verl-omni#383's body says "#373": on GitHub, verl-omni's PR 373, not verl's
    speaker = Speaker(w34, translator("zh"), MARKDOWN)
    said = speaker.text("follows #373", of=pr_key(1, 383))
    assert said == f"follows [verl-omni#373]({OMNI}373)"
    assert speaker.text("follows #373", of=7347) == (
        "follows [#373](https://github.com/verl-project/verl/pull/373)"
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_squash_title_of_another_repository_links_its_own_pr(fmt: str) -> None:
    # the recorded verl-omni week with verl-omni#383 titled as GitHub squash-merges it
    weeks = [recorded(repo, "2026-W34") for repo in FAMILY]
    omni = weeks[1]
    pr = next(p for p in omni.prs if p.number == 383)
    pr.title = f"{pr.title} (#373)"
    digest = family_digest_of(weeks)
    text = render_format(digest, fmt, "en", report_url=URL)
    assert "verl/pull/373" not in text
    if fmt in ("markdown", "html"):  # the title is shown in the top PRs' table, linked
        assert "(#373)" not in text
        assert f"{OMNI}373" in text.split(f"{OMNI}383", 2)[-1]


def _lines_naming(text: str, ref: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith(f"- [{ref}]")]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_key_change_is_told_once(w34: Digest, lang: str) -> None:
    markdown = render_format(w34, "markdown", lang, report_url=URL)
    for ref in ("verl-omni#373", "#7373", "#7408", "verl-vla#21"):
        assert len(_lines_naming(markdown, ref)) == 1, ref
    html = render_format(w34, "html", lang, report_url=URL)
    assert '<section id="key-changes">' not in html
    assert 'href="#by-repo"' in html
    # one repository's digest keeps its section
    single = render_format(w34.model_copy(update={"repos": []}), "html", lang, report_url=URL)
    assert '<section id="key-changes">' in single


def test_a_revert_of_a_ci_change_is_no_key_change(w34: Digest) -> None:
    # #7492 "[ci] fix: revert megatron version on ascend ci" changes one workflow file
    reverted = w34.pr(7492)
    assert reverted is not None
    assert reverted.modules == ["ci"]
    leads = [g.items[0].prs[:1] for part in w34.repos for g in part.key_changes]
    leads += [g.items[0].prs[:1] for g in w34.narrative.key_changes]
    assert [7492] not in leads
    markdown = render_format(w34, "markdown", "zh", report_url=URL)
    assert not _lines_naming(markdown, "#7492")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_tie_between_repositories_says_what_each_side_did(w34: Digest, fmt: str) -> None:
    text = render_format(w34, fmt, "zh", report_url=URL)
    said = shown(text, fmt)
    # #7347 names a verl-omni workload; verl-omni#398 is that workload's fix there
    assert "「enable non-blocking FSDP2 model transfers」提到 verl-omni" in said
    assert "「stabilize L3 qwen-image FlowGRPO nightly determinism and artifact upload」" in said
    assert "「announce verl-vla v0.1.0」提到 verl-vla" in said
    assert "「add the GR00T Arena LIBERO Spatial DSRL recipe」" in said


def test_the_html_report_writes_no_markdown_marks(w34: Digest) -> None:
    html = render_format(w34, "html", "en", report_url=URL)
    assert "**" not in html
    assert "<b>verl-omni</b>" in html or "<strong>verl-omni</strong>" in html


def test_a_breaking_pr_is_told_by_the_code_it_changes_not_its_tests(w34: Digest) -> None:
    # verl-omni#373 "make pixel responses always uint8": most lines are tests; its code is
    # under verl_omni/
    pr = w34.pr(pr_key(1, 373))
    assert pr is not None
    where = [f for f in pr.facts if f.key == "narrative.point.files"]
    assert where
    assert str(where[0].params["folder"]).startswith("verl_omni/")
    markdown = render_format(w34, "markdown", "zh", report_url=URL)
    [line] = _lines_naming(markdown, "verl-omni#373")
    assert "「make pixel responses always uint8」" in line
    assert "`tests/" not in line
