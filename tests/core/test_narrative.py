"""build_narrative on real weeks: every statement is a catalog sentence backed by the digest."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

import pytest

from service.core.digest import build_digest
from service.core.mentions import MENTION_LIMIT, MentionLedger, risk_groups, top_table
from service.core.models import (
    Completeness,
    Digest,
    KeyChangeGroup,
    MissingItem,
    Risk,
    RiskKind,
    Severity,
    Statement,
    Story,
)
from service.core.narrative import (
    RECOMMEND_LISTED,
    REVERT_THEMES,
    ROW_LISTED,
    STORY_CLAUSES,
    SUBSTANTIAL_CORE_LINES,
    SUMMARY_LISTED,
    SUMMARY_STEPS,
    THEMES,
    UPFRONT_KINDS,
    build_narrative,
    has_revert,
    pr_statement,
)
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


def _pr_lists(statement: Statement) -> list[list[int]]:
    return [
        [n for n in v if isinstance(n, int)]
        for v in statement.params.values()
        if isinstance(v, list) and all(isinstance(n, int) for n in v)
    ]


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
        assert t(f"report.category.{group.category}")


# --- executive summary ------------------------------------------------------------------


@pytest.mark.parametrize("label", WEEKS)
def test_summary_is_at_most_five_sentences_without_lists_of_prs(
    digests: dict[str, Digest], label: str
) -> None:
    digest = digests[label]
    summary = digest.narrative.summary
    # the steps users must take on upgrading come on top of the five sentences
    steps = [s for s in summary if ".summary.step." in s.key]
    assert len(steps) <= SUMMARY_STEPS
    assert len(summary) - len(steps) <= 5
    overview = summary[0].params
    assert overview["prs"] == len(digest.prs) == len(load_week(label).prs)
    assert overview["files"] == digest.stats.changed_files
    assert overview["contributors"] == digest.stats.contributors
    for statement in summary:
        for numbers in _pr_lists(statement):
            assert len(numbers) <= SUMMARY_LISTED, statement.key
    # the summary names a PR once, but for a story that is also the worst risk item
    named = [
        n
        for s in summary
        if ".risk_top." not in s.key and ".risk_next." not in s.key
        for n in s.prs
    ]
    assert len(named) == len(set(named))


def test_w04_summary_opens_with_the_steps_users_must_take_then_the_new_engines(
    digests: dict[str, Digest],
) -> None:
    summary = digests["2026-W04"].narrative.summary
    steps = [(s.key.rsplit(".", 1)[1], s.params["pr"]) for s in summary[1:6]]
    assert steps == [
        ("declared_removal", 4280),
        ("renamed_module", 5033),
        ("removed_config_key", 4320),
        ("renamed_module", 4931),
        # #5019 changes `moe_implementation`'s default (eager → fused): a behaviour change
        ("default_changed", 5019),
    ]
    assert summary[2].params["names"] == [
        "verl.utils.veomni_utils → verl.workers.engine.veomni.utils"
    ]
    # the breaking stories are told by their steps; new rollout engines are what users notice next
    feature = summary[6]
    assert feature.key == "narrative.summary.story.features_two"
    assert (feature.params["pr"], feature.params["title"]) == (
        4665,
        "Adding tensorrt_llm as new rollout engine",
    )
    assert "narrative.summary.breaking" not in {s.key for s in summary}
    assert ".risk_next." in summary[-1].key


def test_w48_summary_tells_the_breaking_changes_and_the_migration(
    digests: dict[str, Digest],
) -> None:
    summary = {s.key: s for s in digests["2025-W48"].narrative.summary}
    moved = summary["narrative.summary.step.moved_repository"]
    assert moved.params["pr"] == 4283
    assert moved.params["place"] == "verl-project/verl-recipe"
    assert summary["narrative.summary.step.renamed_module"].prs == [4352]
    assert summary["narrative.summary.step.default_changed"].prs == [4211]
    # #4304's removed helper was called only by a test: not a breaking change any more
    assert "narrative.summary.breaking" not in summary
    # the steps told the breaks: the risk headline goes on "besides those"
    top = next(s for s in summary.values() if ".risk_" in s.key)
    assert top.key == "narrative.summary.risk_next.followup"


@pytest.mark.parametrize("label", WEEKS)
def test_every_high_risk_item_is_named_in_the_summary(
    digests: dict[str, Digest], label: str
) -> None:
    digest = digests[label]
    named = {n for s in digest.narrative.summary for n in s.prs}
    for group in risk_groups(digest.risks):
        if group.severity == Severity.HIGH:
            assert set(group.prs) & named, group.kind


def test_a_failing_check_is_named_in_the_summary(digests: dict[str, Digest]) -> None:
    failing = Risk(
        kind=RiskKind.OPEN_CONCERNS,
        rule="failing_checks",
        severity=Severity.HIGH,
        prs=[4991],
        params={"checks": "e2e_ppo_trainer"},
    )
    digest = digests["2026-W04"].model_copy(update={"risks": [failing]}, deep=True)
    digest.stats.risks_high, digest.stats.risks_medium, digest.stats.risks_low = 1, 0, 0
    summary = build_narrative(digest).summary
    top = next(s for s in summary if ".risk_top." in s.key)
    assert top.key == "narrative.summary.risk_top.open_concerns"
    assert top.prs == [4991]
    text = translator("zh").t(top.key, **top.params)
    assert "检查未通过" in text


# --- key changes ------------------------------------------------------------------------


@pytest.mark.parametrize("label", WEEKS)
def test_key_changes_are_the_weightiest_stories_one_line_each(
    digests: dict[str, Digest], label: str
) -> None:
    digest = digests[label]
    groups = digest.narrative.key_changes
    assert 1 <= len(groups) <= THEMES + REVERT_THEMES
    # beyond THEMES, only a story of reverts (told with its net result)
    assert all(has_revert(s) for s in _stories_of(digest, groups[THEMES:]))
    leads = [g.items[0].params["number"] for g in groups]
    stories = [s for s in digest.stories if s.prs[0] in leads]
    # breaking changes and migrations first, then in the stories' order, weightiest first
    stories.sort(key=lambda s: s.kind not in UPFRONT_KINDS)
    assert [s.prs[0] for s in stories] == leads
    for group, story in zip(groups, stories, strict=True):
        assert group.category == story.kind
        lead = group.items[0]
        assert lead.key.startswith("narrative.change.pr")
        assert lead.params["point"] == lead.params["number"]
        ties = [i for i in group.items[1:] if i.key.startswith("narrative.relation.")]
        ties = [i for i in ties if i.key != "narrative.relation.also"]
        assert len(ties) <= STORY_CLAUSES
        for item in group.items[1:]:
            assert item.key.startswith(("narrative.relation.", "narrative.net."))


def _stories_of(digest: Digest, groups: list[KeyChangeGroup]) -> list[Story]:
    leads = {g.items[0].params["number"] for g in groups}
    return [s for s in digest.stories if s.prs[0] in leads]


def _line(digest: Digest, lead: int) -> list[tuple[str, Mapping[str, object]]]:
    group = next(g for g in digest.narrative.key_changes if g.items[0].params["number"] == lead)
    return [(i.key, i.params) for i in group.items[1:]]


def test_w48_resource_pool_story_tells_the_reverts_and_the_reland(
    digests: dict[str, Digest],
) -> None:
    """#4251 (this week) and #4226 (last week) were reverted; #4273 brings #4251 back."""
    # the reverts and the re-land told by what they come to: #4251 is in (as #4273 has it),
    # #4226 stays out; no weak tie beside them
    assert _line(digests["2025-W48"], 4273) == [
        (
            "narrative.net.relanded",
            {"reverted": 4251, "revert_pr": 4258, "week": "", "reland_pr": 4273},
        ),
        ("narrative.net.undone", {"reverted": 4226, "revert_pr": 4260, "week": "2025-W47"}),
    ]
    zh = translator("zh").t("narrative.relation.revert_earlier", prs="#4260", other_prs="#4226")
    assert zh == "#4260 回滚了上周的 #4226"


def test_w48_colocate_story_reaches_last_week(digests: dict[str, Digest]) -> None:
    assert _line(digests["2025-W48"], 4282) == [
        (
            "narrative.net.relanded",
            {"reverted": 4233, "revert_pr": 4259, "week": "2025-W47", "reland_pr": 4282},
        ),
    ]


def test_w04_veomni_story_follows_last_weeks_pr(digests: dict[str, Digest]) -> None:
    """#5033 rewrites the veomni offload code #4916 added in 2026-W03 (跟进上周)."""
    assert _line(digests["2026-W04"], 5033) == [
        ("narrative.relation.self.reworks_earlier", {"other_prs": [4916], "week": "2026-W03"}),
    ]


def test_a_large_removal_says_how_many_files_went(digests: dict[str, Digest]) -> None:
    digest = digests["2025-W48"]
    pr = digest.pr(4283)
    assert pr is not None
    migration = pr_statement(pr, digest, MentionLedger())
    assert migration.key == "narrative.change.pr_removal"
    assert (migration.params["number"], migration.params["removed"]) == (4283, 21)
    en = translator("en").t(migration.key, **migration.params)
    assert "21 files removed of 22" in en
    assert "+8/-2475" in en


def test_a_breaking_removal_says_it_is_breaking_and_how_many_files_went(
    digests: dict[str, Digest],
) -> None:
    """A declared breaking PR that deletes modules (verl 2026-W19 #6302 is one) keeps both
    marks: the key change says breaking and the files removed."""
    digest = digests["2025-W48"]
    pr = digest.pr(4283)
    assert pr is not None
    statement = pr_statement(pr.model_copy(update={"breaking": True}), digest, MentionLedger())
    assert statement.key == "narrative.change.pr_breaking_removal"
    en = translator("en").t(statement.key, **statement.params)
    assert "(breaking)" in en
    assert "21 files removed of 22" in en
    zh = translator("zh").t(statement.key, **statement.params)
    assert "破坏性变更" in zh
    assert "删除 21 个文件" in zh


# --- trends -----------------------------------------------------------------------------


@pytest.mark.parametrize("label", WEEKS)
def test_module_table_keeps_the_counts_and_names_some_of_their_prs(
    digests: dict[str, Digest], label: str
) -> None:
    digest = digests[label]
    table = digest.narrative.module_table
    buckets = {b.key: b for b in digest.trends.modules}
    assert table
    for row in table:
        bucket = buckets[row.key]
        assert (row.count, row.previous) == (bucket.count, bucket.previous)
        assert set(row.prs) <= set(bucket.prs)
        assert len(row.prs) <= ROW_LISTED
    rest = next(s for s in digest.narrative.trends if ".trend.other_modules" in s.key)
    modules = rest.params["modules"]
    assert isinstance(modules, list)
    assert rest.params["count"] == len(buckets) - len(table)
    named = [r.key for r in table] + [str(m) for m in modules]
    assert named == list(buckets)[: len(named)]


def test_module_table_compares_with_the_previous_week(digests: dict[str, Digest]) -> None:
    rollout = digests["2026-W04"].narrative.module_table[0]
    assert (rollout.key, rollout.count, rollout.previous) == ("rollout", 5, 3)


@pytest.mark.parametrize("label", WEEKS)
def test_most_active_contributors_have_two_prs_or_more(
    digests: dict[str, Digest], label: str
) -> None:
    digest = digests[label]
    people = {c.login: c for c in digest.trends.contributors}
    statement = next(s for s in digest.narrative.trends if ".contributors" in s.key)
    if statement.key == "narrative.trend.contributors":
        logins = statement.params["logins"]
        assert isinstance(logins, list)
        assert logins
        assert all(len(people[str(login)].prs) >= 2 for login in logins)
    else:
        assert all(len(c.prs) == 1 for c in people.values())


def test_w04_most_active_are_the_two_with_two_prs(digests: dict[str, Digest]) -> None:
    statement = next(
        s for s in digests["2026-W04"].narrative.trends if s.key == "narrative.trend.contributors"
    )
    assert statement.params["logins"] == ["Huazhong", "ℍ𝕠𝕝𝕝𝕠𝕨 𝕄𝕒𝕟"]
    assert statement.params["count"] == 20


def test_no_first_timers_are_claimed_when_github_did_not_say(digests: dict[str, Digest]) -> None:
    for digest in digests.values():
        assert not any(s.key == "narrative.trend.first_timers" for s in digest.narrative.trends)


# --- recommendations --------------------------------------------------------------------


@pytest.mark.parametrize("label", WEEKS)
def test_one_recommendation_per_risk_kind_pointing_at_its_risk_items(
    digests: dict[str, Digest], label: str
) -> None:
    digest = digests[label]
    groups = risk_groups(digest.risks)
    for kind in {g.kind for g in groups}:
        statements = [
            s
            for s in digest.narrative.recommendations
            if s.key.split(".")[2].startswith(kind.value)
        ]
        assert len(statements) == 1, kind
        statement = statements[0]
        items = [str(i) for i, g in enumerate(groups, start=1) if g.kind == kind]
        assert statement.params["items"] == items
        prs = {n for g in groups if g.kind == kind for n in g.prs}
        assert set(statement.prs) <= prs
        assert len(statement.prs) <= RECOMMEND_LISTED
        assert statement.params["count"] == len(prs)
        if len(statement.prs) < len(prs):
            assert statement.params["prs_total"] == len(prs)


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
    # only PRs that change at least SUBSTANTIAL_CORE_LINES core lines are called substantial:
    # #4665 (1,172) and #4885 (366), not #4632 (171)
    assert statement.prs == [4665, 4885]
    assert statement.params["lines"] == SUBSTANTIAL_CORE_LINES == 300
    for number in statement.prs:
        pr = digests["2026-W04"].pr(number)
        assert pr is not None
        core = next(f for f in pr.factors if f.name == "core")
        assert int(core.params["core_lines"]) >= SUBSTANTIAL_CORE_LINES


# --- the mention limit ------------------------------------------------------------------


@pytest.mark.parametrize("label", WEEKS)
def test_no_pr_is_named_more_than_the_limit(digests: dict[str, Digest], label: str) -> None:
    digest = digests[label]
    counts: dict[int, int] = {}
    fixed = top_table(digest) + [  # the rows the top-PR table shows
        n for g in risk_groups(digest.risks) for n in g.prs
    ]
    flexible = [n for s in _all_statements(digest) for n in s.prs]
    flexible += [n for row in digest.narrative.module_table for n in row.prs]
    for number in fixed + flexible:
        counts[number] = counts.get(number, 0) + 1
    # a sentence about PRs names at least one of them, even past the limit (never "that PR")
    forced = [s.prs[0] for s in _all_statements(digest) if len(s.prs) == 1]
    forced += [row.prs[0] for row in digest.narrative.module_table if len(row.prs) == 1]
    over = {n: c for n, c in counts.items() if c > MENTION_LIMIT + forced.count(n)}
    assert not over


# --- edges ------------------------------------------------------------------------------


def test_empty_week(verl_profile: RepoProfile) -> None:
    week = load_week("2026-W04").model_copy(update={"prs": []})
    digest = build_digest(week, verl_profile, language="en", now=NOW)
    keys = [s.key for s in digest.narrative.summary]
    assert keys == ["narrative.summary.overview", "narrative.summary.empty"]
    assert digest.narrative.key_changes == []
    assert digest.narrative.module_table == []
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
    recommendations = [s.key for s in digest.narrative.recommendations]
    assert recommendations[-1] == "narrative.recommend.incomplete"
    assert "缺少 1 项" in translator("zh").t(summary.key, **summary.params)


def test_narrative_is_deterministic(digests: dict[str, Digest]) -> None:
    digest = digests["2025-W48"]
    assert build_narrative(digest) == digest.narrative


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
    for family in (
        "files.",
        "summary.overview",
        "summary.story",
        "relation.",
        "change.pr",
        "trend.",
        "recommend.",
    ):
        assert f"narrative.{family}" in comments


@pytest.mark.parametrize("label", WEEKS)
def test_the_risk_headline_counts_items_and_findings_that_add_up(
    digests: dict[str, Digest], label: str
) -> None:
    """The summary's risk sentence gives the numbered items of the risk watch and the findings
    behind them; a worse breaking item the stories already told turns it into 'besides those'."""
    digest = digests[label]
    headline = next(s for s in digest.narrative.summary if ".risk_" in s.key)
    groups = risk_groups(digest.risks)
    assert headline.params["items"] == len(groups)
    stats = digest.stats
    assert headline.params["count"] == stats.risks_high + stats.risks_medium + stats.risks_low
    first_named = headline.key.rsplit(".", 1)[-1]
    told_first = groups[0].kind.value != first_named
    assert (".risk_next." in headline.key) == told_first


def test_the_sample_names_the_untested_core_changes_besides_the_breaking_ones(
    digests: dict[str, Digest],
) -> None:
    """2026-W04: #4280's breaking change (high) is told as a story, so the headline goes on
    with the next item, core code without tests, saying it comes besides the breaking ones."""
    headline = next(s for s in digests["2026-W04"].narrative.summary if ".risk_" in s.key)
    assert headline.key == "narrative.summary.risk_next.core_without_tests"
    text = translator("zh").t(headline.key, **{**headline.params, "prs": "#4936"})
    assert "除上述破坏性变更外" in text


def test_a_declared_break_that_deletes_modules_says_so_in_the_summary() -> None:
    """verl 2026-W19 #6302 ([BREAKING] remove curriculum sampler + dynamic dataset) deletes
    `verl/experimental/dataset/__init__.py`, `…/sampler.py`…: the step says the packages are
    deleted, not that they 'change' with an old → new to migrate."""
    from pathlib import Path

    from service.core.profile import load_profile
    from service.pipeline.recorded import load_recorded

    path = Path(__file__).parents[1] / "data" / "weeks" / "verl-project" / "verl.2026-W19.json"
    week = load_recorded(path, NOW)
    digest = build_digest(week, load_profile(week.repo), language="en", now=NOW)
    step = next(s for s in digest.narrative.summary if s.prs[:1] == [6302])
    assert step.key == "narrative.summary.step.removed_module"
    # a package whose __init__.py goes is told as the package, not file by file
    packages = ["verl/experimental/dataset/", "verl/experimental/dynamic_dataset/"]
    assert step.params["names"] == packages
