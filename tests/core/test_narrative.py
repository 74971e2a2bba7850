"""build_narrative on real weeks: every statement is a catalog sentence backed by the digest."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from service.core.digest import build_digest
from service.core.models import (
    Completeness,
    Digest,
    MissingItem,
    RiskKind,
    Statement,
)
from service.core.narrative import THEMES, build_narrative, prs_text, signed
from service.core.profile import RepoProfile
from service.render.environment import templates_dir, translator
from tests.conftest import NOW, load_week

WEEKS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")
PREVIOUS = {"2025-W48": "2025-W47", "2026-W04": "2026-W03"}


@pytest.fixture(scope="module")
def digests(verl_profile: RepoProfile) -> dict[str, Digest]:
    """Each real week's digest, with the week before as `previous` when we have it."""
    out: dict[str, Digest] = {}
    for label in WEEKS:
        week = load_week(label)
        before = PREVIOUS.get(label)
        earlier = load_week(before).prs if before else None
        previous = out.get(before) if before else None
        out[label] = build_digest(
            week, verl_profile, language="zh", now=NOW, previous=previous, earlier=earlier
        )
    return out


def _all_statements(digest: Digest) -> list[Statement]:
    n = digest.narrative
    return [*n.summary, *(s for g in n.key_changes for s in g.items), *n.trends, *n.recommendations]


def _catalog(lang: str) -> dict[str, object]:
    path = templates_dir() / "strings" / lang / "narrative.toml"
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _flat(table: dict[str, object], prefix: str = "") -> set[str]:
    out: set[str] = set()
    for name, value in table.items():
        dotted = f"{prefix}.{name}" if prefix else name
        out |= _flat(value, dotted) if isinstance(value, dict) else {dotted}
    return out


def test_catalogs_have_the_same_keys_but_english_plurals() -> None:
    zh, en = _flat(_catalog("zh")), _flat(_catalog("en"))
    assert zh
    assert {k for k in en if not k.endswith("_one")} == zh
    assert {k.removesuffix("_one") for k in en if k.endswith("_one")} <= zh


@pytest.mark.parametrize("label", WEEKS)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_statement_renders_in_both_languages(
    digests: dict[str, Digest], label: str, lang: str
) -> None:
    t = translator(lang).t
    digest = digests[label]
    # follow-up risks may name a PR of the week before
    known = {p.number for p in digest.prs}
    known |= {p.number for p in load_week(PREVIOUS[label]).prs} if label in PREVIOUS else set()
    for statement in _all_statements(digest):
        text = t(statement.key, **statement.params)
        assert text.strip(), statement.key
        assert "{" not in text.replace("${", ""), text
        assert set(statement.prs) <= known, statement.key
    for group in digest.narrative.key_changes:
        assert t(f"narrative.category.{group.category}")


@pytest.mark.parametrize("label", WEEKS)
def test_summary_states_counts_themes_and_risk_headline(
    digests: dict[str, Digest], label: str
) -> None:
    digest = digests[label]
    summary = {s.key: s for s in digest.narrative.summary}
    overview = summary["narrative.summary.overview"].params
    assert overview["prs"] == len(digest.prs) == len(load_week(label).prs)
    assert overview["additions"] == sum(p.additions for p in digest.prs)
    assert overview["deletions"] == sum(p.deletions for p in digest.prs)
    assert overview["contributors"] == digest.stats.contributors
    assert overview["first_day"] == digest.start.date().isoformat()
    themes = [s for s in digest.narrative.summary if s.key.startswith("narrative.theme.")]
    assert 2 <= len(themes) <= THEMES
    for theme in themes:
        category = theme.key.rsplit(".", 1)[1]
        assert theme.prs == [p.number for p in digest.prs if p.category == category]
    assert summary["narrative.summary.top_pr"].prs == [digest.prs[0].number]
    busiest = digest.trends.modules[0]
    text = summary["narrative.summary.modules"].params["modules_text"]
    assert str(text).startswith(f"{busiest.key} {busiest.count}")
    assert summary["narrative.summary.risks"].params["total"] == len(digest.risks)
    top_risk = next(s for s in digest.narrative.summary if ".risk_top." in s.key)
    assert top_risk.prs


def test_w48_summary_names_the_reverts_and_the_migration(digests: dict[str, Digest]) -> None:
    summary = {s.key: s for s in digests["2025-W48"].narrative.summary}
    assert summary["narrative.summary.reverts"].prs == [4260, 4259, 4258]
    assert summary["narrative.summary.risk_top.migration"].prs == [4352, 4283]
    assert summary["narrative.summary.top_pr"].params["number"] == 4352


def test_w04_summary_names_the_breaking_change(digests: dict[str, Digest]) -> None:
    summary = {s.key: s for s in digests["2026-W04"].narrative.summary}
    assert summary["narrative.summary.breaking"].prs == [4280]
    assert summary["narrative.summary.breaking"].params["prs_text"] == "#4280"
    assert summary["narrative.summary.top_pr"].params["number"] == 4280


@pytest.mark.parametrize("label", WEEKS)
def test_key_changes_cover_every_pr_once_in_category_order(
    digests: dict[str, Digest], label: str
) -> None:
    digest = digests[label]
    seen: list[int] = []
    for group in digest.narrative.key_changes:
        for statement in group.items:
            seen.extend(statement.prs)
            for number in statement.prs:
                assert digest.pr(number).category == group.category  # type: ignore[union-attr]
    assert sorted(seen) == sorted(p.number for p in digest.prs)
    best = [max(digest.pr(s.prs[0]).score for s in g.items) for g in digest.narrative.key_changes]  # type: ignore[union-attr]
    assert best == sorted(best, reverse=True)  # the group of the most important PR comes first


def test_notable_pr_statements_carry_gist_size_and_files(digests: dict[str, Digest]) -> None:
    groups = {g.category: g for g in digests["2025-W48"].narrative.key_changes}
    migration = groups["migration"].items[0]
    assert migration.key == "narrative.change.pr_removal"
    assert migration.params["number"] == 4283
    assert migration.params["removed"] == 21
    assert migration.params["files"] == 22
    assert "verl-recipe" in str(migration.params["gist"])
    en = translator("en").t(migration.key, **migration.params)
    assert "21 files removed" in en
    assert "+8/-2475" in en


def test_revert_of_a_pr_of_the_same_week_names_it(digests: dict[str, Digest]) -> None:
    reverts = {g.category: g for g in digests["2026-W03"].narrative.key_changes}["reverts"]
    statement = reverts.items[0]
    assert statement.key == "narrative.change.pr_revert_of"
    assert (statement.params["number"], statement.params["reverted"]) == (4937, 4929)


def test_trends_compare_with_the_previous_week(digests: dict[str, Digest]) -> None:
    trends = digests["2026-W04"].narrative.trends
    assert trends[0].key == "narrative.trend.compared_with"
    assert trends[0].params["previous_week"] == "2026-W03"
    modules = [s for s in trends if s.key == "narrative.trend.module_vs"]
    assert modules[0].params["module"] == "rollout"
    assert (modules[0].params["count"], modules[0].params["previous"]) == (5, 3)
    assert modules[0].params["delta_signed"] == "+2"
    fixes = next(s for s in trends if s.key == "narrative.trend.category_vs.fixes")
    assert (fixes.params["count"], fixes.params["previous"], fixes.params["delta_signed"]) == (
        8,
        15,
        "-7",
    )
    first_week = digests["2026-W03"].narrative.trends
    assert not any(s.key.endswith("_vs") or "_vs." in s.key for s in first_week)


@pytest.mark.parametrize("label", WEEKS)
def test_one_recommendation_per_risk_kind_naming_its_prs(
    digests: dict[str, Digest], label: str
) -> None:
    digest = digests[label]
    recommendations = digest.narrative.recommendations
    kinds = {r.kind for r in digest.risks}
    by_kind = {
        kind: [s for s in recommendations if s.key.split(".")[2].startswith(kind.value)]
        for kind in kinds
    }
    for kind, statements in by_kind.items():
        assert len(statements) == 1, kind
        named = {n for r in digest.risks if r.kind == kind for n in r.prs}
        assert set(statements[0].prs) == named


def test_migration_recommendation_says_references_are_unverified(
    digests: dict[str, Digest],
) -> None:
    keys = [s.key for s in digests["2025-W48"].narrative.recommendations]
    assert "narrative.recommend.migration_unverified" in keys


def test_core_changes_get_a_regression_recommendation(digests: dict[str, Digest]) -> None:
    statement = next(
        s
        for s in digests["2026-W04"].narrative.recommendations
        if s.key == "narrative.recommend.regression_core"
    )
    assert statement.prs[0] == 4280
    for number in statement.prs:
        pr = digests["2026-W04"].pr(number)
        assert pr is not None
        assert any(f.name == "core" for f in pr.factors)


def test_empty_week(verl_profile: RepoProfile) -> None:
    week = load_week("2026-W04").model_copy(update={"prs": []})
    digest = build_digest(week, verl_profile, language="en", now=NOW)
    keys = [s.key for s in digest.narrative.summary]
    assert keys == ["narrative.summary.overview", "narrative.summary.empty"]
    assert digest.narrative.key_changes == []
    assert [s.key for s in digest.narrative.recommendations] == ["narrative.recommend.none"]
    t = translator("en").t
    assert all(t(s.key, **s.params) for s in _all_statements(digest))


def test_incomplete_week_says_so(verl_profile: RepoProfile) -> None:
    missing = [MissingItem(number=4280, what="files", reason="HTTP 502 after retries")]
    week = load_week("2026-W04").model_copy(
        update={"completeness": Completeness(complete=False, missing=missing)}
    )
    digest = build_digest(week, verl_profile, language="zh", now=NOW)
    summary = digest.narrative.summary[-1]
    assert summary.key == "narrative.summary.incomplete"
    assert summary.prs == [4280]
    recommendations = [s.key for s in digest.narrative.recommendations]
    assert recommendations[-1] == "narrative.recommend.incomplete"
    assert "缺少 1 项" in translator("zh").t(summary.key, **summary.params)


def test_narrative_is_deterministic(digests: dict[str, Digest]) -> None:
    digest = digests["2025-W48"]
    assert build_narrative(digest) == digest.narrative


def test_pr_lists_and_deltas_are_preformatted() -> None:
    assert prs_text([6200, 6162]) == "#6200, #6162"
    assert prs_text(list(range(1, 11)), limit=8) == "#1, #2, #3, #4, #5, #6, #7, #8, …(+2)"
    assert (signed(2), signed(-1), signed(0)) == ("+2", "-1", "±0")


def test_statement_params_are_scalars_or_lists(digests: dict[str, Digest]) -> None:
    for digest in digests.values():
        for statement in _all_statements(digest):
            for value in statement.params.values():
                assert isinstance(value, str | int | float | list), statement.key


def test_every_risk_kind_has_summary_and_recommendation_sentences() -> None:
    for lang in ("zh", "en"):
        t = translator(lang)
        for kind in RiskKind:
            assert t.has(f"narrative.summary.risk_top.{kind.value}")
            assert t.has(f"narrative.recommend.{kind.value}")


def test_catalog_documents_its_keys() -> None:
    header = (Path(templates_dir()) / "strings" / "en" / "narrative.toml").read_text("utf-8")
    comments = "\n".join(line for line in header.splitlines() if line.startswith("#"))
    for family in ("summary.overview", "theme.", "change.pr", "trend.module", "recommend."):
        assert f"narrative.{family}" in comments
