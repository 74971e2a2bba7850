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
from service.core.models import CollectedWeek, Digest
from service.core.profile import load_profile
from service.core.weeks import window_for
from service.recorded import week_from_recorded
from service.render.formats import render_format
from tests.family.conftest import FAMILY
from tests.harness import TZ

WEEKS = Path(__file__).parents[1] / "data" / "weeks" / "verl-project"
NOW = datetime(2026, 12, 1, tzinfo=UTC)
URL = "http://reports.test/r"
FORMATS = ("markdown", "html", "slack", "feishu")


def recorded(repo: str, week: str) -> CollectedWeek:
    """A recorded week of one repository (none recorded: it merged nothing)."""
    path = WEEKS / f"{repo.rpartition('/')[2]}.{week}.json"
    if not path.exists():
        year, number = (int(x) for x in week.split("-W"))
        return CollectedWeek(repo=repo, window=window_for(year, number, TZ), prs=[])
    data = json.loads(path.read_text("utf-8"))
    return week_from_recorded({**data, "web_url": "https://github.com"}, NOW)


def family_digest(
    week: str, repos: Sequence[str] = FAMILY, key: str = "verl-project", lang: str = "zh"
) -> Digest:
    weeks = [recorded(repo, week) for repo in repos]
    parts = [build_digest(w, load_profile(w.repo), language=lang, now=NOW) for w in weeks]
    crossings, ties = find_crossings(list(repos), [w.prs for w in weeks])
    return merge_family(
        key,
        list(repos),
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
