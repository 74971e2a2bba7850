"""The digest's narrative as catalog statements (key, params, PRs): executive summary, key
changes by theme, trends (with the short report's module table) and follow-up recommendations.
No words here: every sentence is a key of templates/strings/{zh,en}/narrative.toml.

The short report names a PR at most MENTION_LIMIT times (core/mentions.py): the top-PR table and
the risk items always name theirs; the summary's top stories, key changes, the rest of the
summary, the recommendations and the module table, in that order, name a PR only while it has
mentions left (a recommendation also points at
its numbered risk items, so it reads well when it can name none). A PR list that had to leave
PRs out says how many it holds (`<name>_total`)."""

from __future__ import annotations

import re
from datetime import UTC, date, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

from service.core.mentions import (
    MentionLedger,
    fixed_ledger,
    leaf_risks,
    risk_groups,
)
from service.core.models import (
    Digest,
    KeyChangeGroup,
    Narrative,
    RelationKind,
    Risk,
    RiskKind,
    ScoredPR,
    Statement,
    Story,
    TrendBucket,
)
from service.core.names_list import split_names
from service.core.net_results import net_results
from service.core.relations import description
from service.core.titles import MOVE_WORDS, parse_title
from service.core.weeks import label_before

Params = dict[str, str | int | float | list[int] | list[str]]
PREFIX = "narrative"
# how categories rank when their most important PRs weigh the same
CATEGORY_ORDER = (
    "migration",
    "refactor",
    "features",
    "performance",
    "fixes",
    "reverts",
    "hardware",
    "infra",
    "docs",
    "chores",
    "other",
)
# key changes: at most this many stories, each with up to STORY_CLAUSES ties and naming up to
# STORY_ALSO more of its PRs
THEMES = 4
# and a story of reverts beyond them: a change taken out (and perhaps re-landed) is news
REVERT_THEMES = 1
STORY_CLAUSES = 3
STORY_ALSO = 3
# a PR is stated in key changes from this score on; a theme's best PR from GROUP_LEAD_SCORE
NOTABLE_SCORE = 4.5
GROUP_LEAD_SCORE = 3.0
# modules whose changes alone are no key change when reverted (CI workflows, docs)
MINOR_MODULES = frozenset({"ci", "doc", "docs"})
_REVERT_WORD = re.compile(r"\brevert", re.I)
# the summary: at most SUMMARY_SENTENCES sentences, telling up to SUMMARY_STORIES stories users
# will notice (in NOTICE_ORDER, then by weight); a sentence names up to SUMMARY_LISTED PRs
SUMMARY_SENTENCES = 5
SUMMARY_STORIES = 3
STORIES_PER_KIND = 2
# reverts: at most this many sentences of net results
SUMMARY_NETS = 2
NOTICE_ORDER = ("breaking", "migration", "reverts", "features")
# the key changes told before the others, whatever their weight
UPFRONT_KINDS = ("breaking", "migration")
# ties that only say the PRs touch the same code or subject: told after the others
WEAK_TIES = frozenset({RelationKind.REWORKS, RelationKind.SUBJECT})
SUMMARY_LISTED = 3
# recommendations and module rows name this many PRs at most
RECOMMEND_LISTED = 4
ROW_LISTED = 2
# the module table: modules with at least this many PRs (at least MIN_ROWS rows, at most MAX_ROWS)
ROW_MIN_PRS = 2
MIN_ROWS = 3
MAX_ROWS = 6
# the modules left out of the table named in a line (the HTML chart has them all)
OTHER_MODULES = 6
MOST_ACTIVE_MIN_PRS = 2
MOST_ACTIVE = 5
MAX_PATHS = 3
# core-path regression tests are advised for PRs this important that change at least this many
# lines in core paths: the one size that earns "substantial" (大幅) in the text, which states it
REGRESSION_SCORE = 5.0
SUBSTANTIAL_CORE_LINES = 300
REMOVED_FILES_NOTABLE = 5
# the migration detector's rule when files of the repository still name a removed path
MIGRATION_REFERENCES_REMAIN = "references_remain"
# its rules for code that lives on elsewhere: a git submodule, another repository
MIGRATION_SUBMODULE = "submodule"
MIGRATION_MOVED = "moved_repository"
BREAKING_KINDS = (RiskKind.BREAKING, RiskKind.MIGRATION)
TOTAL_SUFFIX = "_total"
# a month or range says so when no PR merged for this many days in a row, where the rest of it
# merged at least SILENT_RATE PRs a week
SILENT_DAYS = 14
SILENT_RATE = 10


def key(*parts: str) -> str:
    """A narrative catalog key: `narrative.<part>.<part>`."""
    return ".".join((PREFIX, *parts))


# the prefix of the summary's upgrade-step statements (`narrative.summary.step.<rule>`): the
# analyst tells the model which PRs they are about, the report's templates list them apart
STEP_KEY = key("summary", "step") + "."


def _listed(name: str, named: list[int], total: int) -> Params:
    """A PR list parameter and, when it names fewer than it stands for, its total."""
    params: Params = {name: named}
    if total > len(named):
        params[name + TOTAL_SUFFIX] = total
    return params


def _name_some(ledger: MentionLedger, numbers: list[int], most: int) -> list[int]:
    """The PRs a sentence about `numbers` names: those with mentions left (at most `most`);
    a sentence about one PR names it even when it has none left ("write down what that PR
    changed" says nothing: the limit drops repeats, not content). Several PRs none of which
    is left read "these 3 PRs" beside the risk items they are in."""
    named = ledger.take(numbers, most)
    if not named and len(numbers) == 1:
        named = numbers[:1]
        ledger.add(named)
    return named


# --- key changes ------------------------------------------------------------------------


def _revert_params(pr: ScoredPR, digest: Digest, ledger: MentionLedger) -> tuple[str, Params]:
    reverted_title = parse_title(pr.title).reverted_title or ""
    target = next((p for p in digest.prs if p.title.strip() == reverted_title.strip()), None)
    if target is not None and ledger.take([target.number]):
        return "pr_revert_of", {"reverted": target.number, "reverted_title": reverted_title}
    return "pr_revert", {"reverted_title": reverted_title}


def pr_statement(pr: ScoredPR, digest: Digest, ledger: MentionLedger) -> Statement:
    """One key-change line: the PR's point (the Speaker renders `point` from the PR), size and
    what is special about it (breaking, a large removal, a revert)."""
    params: Params = {
        "number": pr.number,
        "point": pr.number,
        "files": pr.changed_files,
        "additions": pr.additions,
        "deletions": pr.deletions,
        "removed": pr.files_removed,
        "count": pr.changed_files,  # picks the catalog's one-file sentence
    }
    variant = "pr"
    named = [pr.number]
    if pr.change_type == "revert":
        variant, extra = _revert_params(pr, digest, ledger)
        params.update(extra)
        named += [v for k, v in extra.items() if k == "reverted" and isinstance(v, int)]
    elif pr.files_removed >= REMOVED_FILES_NOTABLE:
        variant = "pr_breaking_removal" if pr.breaking else "pr_removal"
    elif pr.breaking:
        variant = "pr_breaking"
    return Statement(key=key("change", variant), params=params, prs=named)


def _key_stories(digest: Digest) -> list[tuple[Story, list[ScoredPR]]]:
    """The weightiest stories (at most THEMES) whose best PR is worth a key change, and the
    weightiest story of reverts they leave out (at most REVERT_THEMES)."""
    by_number = {p.number: p for p in digest.prs}
    out: list[tuple[Story, list[ScoredPR]]] = []
    reverts = 0
    for story in digest.stories:
        prs = [by_number[n] for n in story.prs if n in by_number]
        if not prs or prs[0].score < GROUP_LEAD_SCORE:
            continue
        if len(out) < THEMES:
            out.append((story, prs))
        elif reverts < REVERT_THEMES and has_revert(story):
            out.append((story, prs))
            reverts += 1
    return out


def has_revert(story: Story) -> bool:
    """Whether the story holds a revert: told even when its PRs weigh little."""
    return any(r.kind == RelationKind.REVERT for r in story.relations)


def _clause_key(kind: RelationKind, week: str, previous: str, *, own: bool) -> str:
    """`narrative.relation[.self].<kind>`, `_earlier` for last week's PR, `_older` for an older
    one; `self` when the later PR is the line's lead (the line already names it)."""
    suffix = "" if not week else "_earlier" if week == previous else "_older"
    return key("relation", *(("self",) if own else ()), kind.value + suffix)


def _clauses(
    story: Story,
    digest: Digest,
    ledger: MentionLedger,
    lead: int,
    said: set[tuple[int, int]],
    most: int = STORY_CLAUSES,
) -> list[Statement]:
    """What ties the story's PRs together, one clause per kind of tie, week and whether the
    lead is the later PR (strong ties before weak ones — reworked lines, a shared subject — and
    the lead's own first, so that "it" follows its sentence; at most STORY_CLAUSES), naming
    PRs while they have mentions left; a tie the lead's own sentence told (`said`) is not told
    again. A line that tells net results (`most` below STORY_CLAUSES) tells no weak tie."""
    previous = label_before(digest.period)
    grouped: dict[tuple[RelationKind, str, bool], tuple[list[int], list[int]]] = {}
    for r in story.relations:
        if (r.pr, r.other) in said or (most < STORY_CLAUSES and r.kind in WEAK_TIES):
            continue
        later, earlier = grouped.setdefault((r.kind, r.week, r.pr == lead), ([], []))
        later.append(r.pr)
        earlier.append(r.other)
    rank = {k: i for i, k in enumerate(RelationKind)}
    out: list[Statement] = []
    for (kind, week, own), (later, earlier) in sorted(
        grouped.items(), key=lambda kv: (kv[0][0] in WEAK_TIES, not kv[0][2], rank[kv[0][0]])
    ):
        if len(out) >= most:
            break
        prs = [] if own else ledger.take(later)
        others = ledger.take(earlier)
        if (not prs and not own) or not others:
            continue
        params: Params = {"other_prs": others, "week": week}
        if not own:
            params["prs"] = prs
        out.append(Statement(key=_clause_key(kind, week, previous, own=own), params=params))
    return out


def story_statements(
    story: Story, prs: list[ScoredPR], digest: Digest, ledger: MentionLedger
) -> list[Statement]:
    """One key-change line: the story's lead PR (of its `prs`) with its point, then what ties
    the rest to it (reverts, re-lands, follow-ups, also of earlier weeks), then its PRs not yet
    named. A PR standing in for the story's lead (told elsewhere already) must be worth a key
    change itself (a revert of CI or docs only never is); when none has mentions left, the
    lead itself leads past the limit (that is content: the story is not dropped)."""
    fit = [
        p for i, p in enumerate(prs) if not _minor(p) and (i == 0 or p.score >= GROUP_LEAD_SCORE)
    ]
    lead = next((p for p in fit if ledger.take([p.number])), None)
    if lead is None and fit and fit[0] is prs[0]:
        lead = prs[0]
        ledger.add([lead.number])
    if lead is None:
        return []
    items = [pr_statement(lead, digest, ledger)]
    said = {(lead.number, n) for n in items[0].prs if n != lead.number}
    # a revert's net result tells the revert, the re-land and the re-land's fix of the revert
    nets = net_results(story, digest)
    for net in nets:  # content: named past the limit, and counted so later repeats drop
        ledger.add(net.prs)
    said |= {(a, b) for net in nets for a in net.prs for b in net.prs if a != b}
    items += _clauses(story, digest, ledger, lead.number, said, STORY_CLAUSES - len(nets))
    items += nets
    named = {n for item in items for n in item.prs}
    named |= {
        n
        for item in items
        for v in item.params.values()
        if isinstance(v, list)
        for n in v
        if isinstance(n, int)
    }
    rest = ledger.take([p.number for p in prs if p.number not in named], STORY_ALSO)
    if rest:
        items.append(Statement(key=key("relation", "also"), params={"prs": rest}))
    return items


def _minor(pr: ScoredPR) -> bool:
    """A revert (or a fix that reverts) touching only CI or docs: nothing changes for users."""
    reverts = pr.change_type == "revert" or bool(_REVERT_WORD.search(pr.title))
    return reverts and bool(pr.modules) and set(pr.modules) <= MINOR_MODULES


def build_key_changes(digest: Digest, ledger: MentionLedger) -> list[KeyChangeGroup]:
    """At most THEMES stories, one line each: its lead PR's point and what ties its PRs;
    breaking changes and migrations first (what a reader must act on), then by weight."""
    groups = []
    stories = sorted(_key_stories(digest), key=lambda sp: sp[0].kind not in UPFRONT_KINDS)
    for story, prs in stories:
        items = story_statements(story, prs, digest, ledger)
        if items:
            groups.append(KeyChangeGroup(category=story.kind, items=items))
    return groups


# --- executive summary ------------------------------------------------------------------


def _overview(digest: Digest) -> Statement:
    stats = digest.stats
    return Statement(
        key=key("summary", "overview"),
        params={
            "count": stats.prs,
            "prs": stats.prs,
            "additions": stats.additions,
            "deletions": stats.deletions,
            "files": stats.changed_files,
            "contributors": stats.contributors,
        },
    )


def _notice_rank(story: Story) -> int:
    return NOTICE_ORDER.index(story.kind) if story.kind in NOTICE_ORDER else len(NOTICE_ORDER)


def _noticed(digest: Digest, stepped: set[int]) -> list[tuple[Story, ScoredPR]]:
    """The stories users will notice, at most SUMMARY_STORIES and STORIES_PER_KIND of a kind:
    breaking changes, migrations, reverts and re-lands, new features, then the rest, each by
    weight; only stories whose lead PR is notable."""
    by_number = {p.number: p for p in digest.prs}
    ranked = []
    for story in digest.stories:
        lead = by_number.get(story.prs[0])
        # a break or move whose lead PR the summary's steps tell is not a story of its own
        # there (its group may hold PRs that are no break: a same-week rewrite, a follow-up)
        if story.kind in ("breaking", "migration") and story.prs[0] in stepped:
            continue
        notable = NOTABLE_SCORE if not has_revert(story) else GROUP_LEAD_SCORE
        if lead is not None and lead.score >= notable:
            ranked.append((story, lead))
    ranked.sort(key=lambda sl: (_notice_rank(sl[0]), -sl[0].weight))
    out: list[tuple[Story, ScoredPR]] = []
    for story, lead in ranked:
        if sum(1 for s, _ in out if _summary_kind(s) == _summary_kind(story)) < STORIES_PER_KIND:
            out.append((story, lead))
    return out[:SUMMARY_STORIES]


def _summary_kind(story: Story) -> str:
    return story.kind if story.kind in NOTICE_ORDER else "change"


def _story_sentence(
    kind: str, told: list[tuple[Story, ScoredPR]], ledger: MentionLedger
) -> Statement | None:
    """One sentence for one or two stories of a kind: each lead PR by number and its title's
    own words; with one story, the story's other PRs of the week too."""
    leads = [lead for _, lead in told if ledger.take([lead.number])]
    if not leads:
        return None
    kind = _moved_or_removed(kind, leads)
    params: Params = {"pr": leads[0].number, "title": description(leads[0].title)}
    if len(leads) > 1:
        params.update(next_pr=leads[1].number, next_title=description(leads[1].title))
        prs = [leads[0].number, leads[1].number]
        return Statement(key=key("summary", "story", kind + "_two"), params=params, prs=prs)
    story = next(s for s, lead in told if lead is leads[0])
    others = ledger.take([n for n in story.prs if n != leads[0].number], SUMMARY_LISTED)
    if not others:
        return Statement(key=key("summary", "story", kind), params=params, prs=[leads[0].number])
    params.update(_listed("prs", others, len(story.prs) - 1))
    prs = [leads[0].number, *others]
    return Statement(key=key("summary", "story", kind + "_with"), params=params, prs=prs)


def _moved_or_removed(kind: str, leads: list[ScoredPR]) -> str:
    """A migration whose lead PRs only delete code their titles do not say went elsewhere is
    a removal: there is no new location to send users to (`migration_removal`: one of each)."""
    if kind != "migration":
        return kind
    removed = [p.additions == 0 and not MOVE_WORDS.search(p.title) for p in leads]
    if all(removed):
        return "removal"
    return "migration_removal" if any(removed) else kind


def _stories(
    digest: Digest, ledger: MentionLedger, most: int, stepped: set[int]
) -> list[Statement]:
    """At most `most` sentences on the stories users will notice, one per kind of story."""
    by_kind: dict[str, list[tuple[Story, ScoredPR]]] = {}
    for story, lead in _noticed(digest, stepped):
        by_kind.setdefault(_summary_kind(story), []).append((story, lead))
    out = []
    for kind, told in list(by_kind.items())[: max(most, 0)]:
        nets = _summary_nets(kind, told, digest, ledger)
        sentence = None if nets else _story_sentence(kind, told, ledger)
        out += nets or ([sentence] if sentence is not None else [])
    return out


def _summary_nets(
    kind: str, told: list[tuple[Story, ScoredPR]], digest: Digest, ledger: MentionLedger
) -> list[Statement]:
    """Reverts told by what they come to, one sentence per reverted PR (at most SUMMARY_NETS):
    the change, its revert and its re-land as one story with its net result. That is content,
    so it names its PRs even past the mention limit."""
    if kind != "reverts":
        return []
    nets = [n for story, _ in told for n in net_results(story, digest, summary=True)]
    nets = nets[:SUMMARY_NETS]
    for net in nets:
        ledger.add(net.prs)
    return nets


def _breaking_prs(digest: Digest) -> list[int]:
    from_risks = [n for r in leaf_risks(digest.risks) if r.kind in BREAKING_KINDS for n in r.prs]
    declared = [p.number for p in digest.prs if p.breaking]
    rank = {p.number: i for i, p in enumerate(digest.prs)}
    numbers = set(from_risks) | set(declared)
    return sorted(numbers, key=lambda n: (rank.get(n, len(rank)), n))


def _breaking(digest: Digest, ledger: MentionLedger, told: set[int]) -> list[Statement]:
    """Breaking changes and migrations the stories did not already tell."""
    numbers = [n for n in _breaking_prs(digest) if n not in told]
    if not numbers:
        return []
    named = _name_some(ledger, numbers, SUMMARY_LISTED)
    params = {"count": len(numbers), **_listed("prs", named, len(numbers))}
    return [Statement(key=key("summary", "breaking"), params=params, prs=named)]


# what a user does about each kind of break, by the rule that found it (the summary's steps)
STEP_RULES = (
    "renamed_module",
    "moved_symbol",
    "moved_config_key",
    "default_changed",
    "removed_config_key",
    "removed_module",
    "removed_symbol",
    "removed_flag",
    "removed_env",
    "declared_removal",
    "moved_repository",
    "submodule",
    "declared",  # a title that says breaking and nothing found to name: read the PR first
)
SUMMARY_STEPS = 5
STEP_NAMES = 2


def _step(risk: Risk, titles: dict[int, str]) -> Statement:
    number = risk.prs[0]
    if risk.rule == "declared":
        title = description(titles.get(number, ""))
        return Statement(
            key=key("summary", "step", "declared"),
            params={"pr": number, "title": title},
            prs=[number],
        )
    names = _packages(split_names(str(risk.params.get("names", ""))))[:STEP_NAMES]
    targets = split_names(str(risk.params.get("targets", "")))[:STEP_NAMES]
    # `count`: how many names the step shows (`the module x` / `the modules x, y`)
    params: Params = {"pr": number, "names": names, "targets": targets, "count": len(names)}
    url = str(risk.params.get("url", ""))
    if url:  # the repository it moved to, by name (`owner/name`)
        params["place"] = url.rstrip("/").split("://", 1)[-1].split("/", 1)[-1]
    rule = risk.rule if names or targets else "declared_removal_bare"
    if rule == "declared_removal" and all(_removed_file(n) or n.endswith("/") for n in names):
        rule = "removed_module"  # what a declared break changes first are modules it deletes
    if rule == "moved_repository" and "place" not in params:
        rule = "moved_repository_nourl"
    return Statement(key=key("summary", "step", rule), params=params, prs=[number])


def _packages(names: list[str]) -> list[str]:
    """`names` with a package whose `__init__.py` is among them told as the package (`pkg/`),
    its other files left out: a reader migrates off `verl/experimental/dataset/`, not off its
    `__init__.py` and `sampler.py` one by one."""
    packages = [n.removesuffix("__init__.py") for n in names if n.endswith("/__init__.py")]
    out: list[str] = []
    for name in names:
        package = next((p for p in packages if name.startswith(p)), None)
        told = package if package is not None else name
        if told not in out:
            out.append(told)
    return out


def _removed_file(name: str) -> bool:
    """A name a declared break lists that is a Python file, not moved (`old → new`)."""
    return name.endswith(".py") and "→" not in name


def _step_risks(digest: Digest) -> list[Risk]:
    """The risk each step tells: per breaking PR (most important first, at most
    SUMMARY_STEPS) the one whose rule comes first in STEP_RULES."""
    rank = {p.number: i for i, p in enumerate(digest.prs)}
    found: dict[int, Risk] = {}
    kinds = [r for r in leaf_risks(digest.risks) if r.kind in BREAKING_KINDS and r.prs]
    for risk in sorted(
        kinds, key=lambda r: STEP_RULES.index(r.rule) if r.rule in STEP_RULES else 99
    ):
        if risk.rule in STEP_RULES:
            found.setdefault(risk.prs[0], risk)
    chosen = sorted(found, key=lambda n: (rank.get(n, len(rank)), n))[:SUMMARY_STEPS]
    return [found[n] for n in chosen]


def _steps(digest: Digest, ledger: MentionLedger) -> list[Statement]:
    """What users must do on upgrading, one sentence per breaking PR: the first thing it
    renames, moves, re-defaults or removes, and the step in the reader's language."""
    risks = _step_risks(digest)
    ledger.add(r.prs[0] for r in risks)
    titles = {p.number: p.title for p in digest.prs}
    return [_step(r, titles) for r in risks]


def _risk_headline(
    digest: Digest, ledger: MentionLedger, told_breaking: set[int], told_reverts: set[int]
) -> Statement:
    """The risk counts and the worst risk item the summary has not told yet (high first; a
    breaking change or migration is told when its PRs were told as breaking), naming its PRs."""
    if not digest.risks:
        return Statement(key=key("summary", "no_risks"))
    stats = digest.stats
    groups = risk_groups(digest.risks)
    counts: Params = {
        "items": len(groups),
        "count": stats.risks_high + stats.risks_medium + stats.risks_low,
        "high": stats.risks_high,
        "medium": stats.risks_medium,
        "low": stats.risks_low,
    }
    told = [
        (g.kind in BREAKING_KINDS and set(g.prs) <= told_breaking)
        or (g.kind == RiskKind.FOLLOWUP and set(g.prs) <= told_reverts)
        for g in groups
    ]
    index = next((i for i, was_told in enumerate(told) if not was_told), None)
    if index is None:
        return Statement(key=key("summary", "risk_counts"), params=counts)
    group = groups[index]
    named = _name_some(ledger, group.prs, SUMMARY_LISTED)
    params = {**counts, **_listed("prs", named, len(group.prs))}
    # a worse item the stories already told as breaking comes first: say "besides those"
    before = zip(groups[:index], told[:index], strict=True)
    worse = [g.kind in BREAKING_KINDS for g, was_told in before if was_told]
    sentence = "risk_next" if any(worse) else "risk_top"
    return Statement(key=key("summary", sentence, group.kind.value), params=params, prs=named)


def _unrecorded(digest: Digest) -> list[tuple[date, date]]:
    """The days the data says it does not hold (a recording's uncovered days)."""
    out = []
    for m in digest.completeness.missing:
        first, last = m.params.get("first"), m.params.get("last")
        if isinstance(first, str) and isinstance(last, str):
            out.append((date.fromisoformat(first), date.fromisoformat(last)))
    return out


def silent_stretch(digest: Digest) -> tuple[date, date, int] | None:
    """The longest run of days with no merge in a month or range, when it is at least
    SILENT_DAYS long and the rest of the period merged at least SILENT_RATE PRs a week (a quiet
    repository is not news); days the data does not hold are no silence."""
    zone = ZoneInfo(digest.timezone) if digest.timezone else UTC
    first = digest.start.astimezone(zone).date()
    last = (digest.end - timedelta(microseconds=1)).astimezone(zone).date()  # end: exclusive
    span = (last - first).days
    if span <= SILENT_DAYS or not digest.prs:
        return None
    merged = sorted({p.merged_at.astimezone(zone).date() for p in digest.prs})
    edges = [first - timedelta(days=1), *merged, last]
    gap = max(pairwise(edges), key=lambda pair: (pair[1] - pair[0]).days)
    quiet = (gap[0] + timedelta(days=1), gap[1] - timedelta(days=1))
    days = (quiet[1] - quiet[0]).days + 1
    if days < SILENT_DAYS:
        return None
    if any(a <= quiet[1] and quiet[0] <= b for a, b in _unrecorded(digest)):
        return None
    rate = round(len(digest.prs) / max((span + 1 - days) / 7, 1))
    return (*quiet, rate) if rate >= SILENT_RATE else None


def _silent(digest: Digest) -> list[Statement]:
    found = silent_stretch(digest)
    if found is None:
        return []
    first, last, rate = found
    params: Params = {
        "first": first.isoformat(),
        "last": last.isoformat(),
        "days": (last - first).days + 1,
        "rate": rate,
    }
    return [Statement(key=key("summary", "silent"), params=params)]


def _incomplete(digest: Digest) -> list[Statement]:
    if digest.completeness.complete and not digest.completeness.missing:
        return []
    missing = digest.completeness.missing
    params = {"count": len(missing), "pages": sum(1 for m in missing if m.number is None)}
    return [Statement(key=key("summary", "incomplete"), params=params)]


def _told_reverts(stories: list[Statement]) -> set[int]:
    """The PRs the summary's net results of reverts name (their follow-up risk is told)."""
    net = key("summary", "net") + "."
    return {n for st in stories if st.key.startswith(net) for n in st.prs}


def build_summary(
    digest: Digest, ledger: MentionLedger, stories: list[Statement], steps: list[Statement]
) -> list[Statement]:
    """At most five sentences: the week in numbers, its top stories (told first, see
    build_narrative), breaking changes and migrations, the risk headline (real failures
    first), and data gaps."""
    if not digest.prs:
        return [_overview(digest), Statement(key=key("summary", "empty")), *_incomplete(digest)]
    told = {n for s in (*stories, *steps) for n in s.prs}
    incomplete = _incomplete(digest)
    room = SUMMARY_SENTENCES - 2 - len(stories) - len(incomplete)  # the overview, the risk
    breaking = _breaking(digest, ledger, told) if room > 0 else []
    breaking_keys = tuple(key("summary", "story", k) for k in ("breaking", "migration", "removal"))
    act = [st for st in stories if st.key.startswith(breaking_keys)]
    stepped = {n for st in steps for n in st.prs}
    # a break the steps tell (what changed and what to do) is not announced again before them
    act = [st for st in act if not set(st.prs) <= stepped]
    marked = {n for st in (*act, *steps) for n in st.prs}
    told_breaking = marked | (
        {n for n in _breaking_prs(digest) if n not in told} if breaking else set()
    )
    # what users must act on first (breaks and moves, with the step), then the other stories
    return [
        _overview(digest),
        *act,
        *steps,
        *breaking,
        *[st for st in stories if not st.key.startswith(breaking_keys)],
        _risk_headline(digest, ledger, told_breaking, _told_reverts(stories)),
        *_silent(digest),
        *incomplete,
    ]


# --- trends -----------------------------------------------------------------------------


def _table_buckets(digest: Digest) -> list[TrendBucket]:
    modules = digest.trends.modules
    rows = [b for b in modules if b.count >= ROW_MIN_PRS]
    if len(rows) < MIN_ROWS:
        rows = modules[:MIN_ROWS]
    return rows[:MAX_ROWS]


def build_module_table(digest: Digest, ledger: MentionLedger) -> list[TrendBucket]:
    """The busiest modules, each naming up to ROW_LISTED of its PRs (most important first) that
    still have mentions left; `count` keeps the whole count."""
    rank = {p.number: i for i, p in enumerate(digest.prs)}
    rows = []
    for bucket in _table_buckets(digest):
        ordered = sorted(bucket.prs, key=lambda n: (rank.get(n, len(rank)), n))
        rows.append(bucket.model_copy(update={"prs": _name_some(ledger, ordered, ROW_LISTED)}))
    return rows


def _people(digest: Digest) -> list[Statement]:
    people = digest.trends.contributors
    if not people:
        return []
    active = [c.login for c in people if len(c.prs) >= MOST_ACTIVE_MIN_PRS][:MOST_ACTIVE]
    out = []
    if active:
        params: Params = {"count": len(people), "logins": active}
        out.append(Statement(key=key("trend", "contributors"), params=params))
    else:
        out.append(Statement(key=key("trend", "contributors_even"), params={"count": len(people)}))
    first = [c.login for c in people if c.first_time]
    if first:
        params = {"count": len(first), "logins": first}
        out.append(Statement(key=key("trend", "first_timers"), params=params))
    return out


def build_trend_statements(digest: Digest, table: list[TrendBucket]) -> list[Statement]:
    """What the module table leaves out, and who contributed (the most active with 2+ PRs)."""
    out: list[Statement] = []
    shown = {b.key for b in table}
    rest = [b.key for b in digest.trends.modules if b.key not in shown]
    if rest:
        params: Params = {"count": len(rest), "modules": rest[:OTHER_MODULES]}
        many = "_many" if len(rest) > OTHER_MODULES else ""
        out.append(Statement(key=key("trend", "other_modules" + many), params=params))
    return out + _people(digest)


# --- recommendations --------------------------------------------------------------------


def _recommend_name(kind: RiskKind, risks: list[Risk]) -> str:
    """The risk kind, and for migrations what the week did: code moved into a submodule or to
    another repository (tell users where it lives now), or removed (what is known about
    references to the removed paths). A week that only moved code into a submodule is never
    told to clean up references: nothing was removed."""
    if kind != RiskKind.MIGRATION:
        return kind.value
    if any(r.rule == MIGRATION_REFERENCES_REMAIN for r in risks):
        return kind.value
    rules = {r.rule for r in risks}
    if rules == {MIGRATION_SUBMODULE}:
        return "migration_submodule"
    if rules <= {MIGRATION_SUBMODULE, MIGRATION_MOVED}:
        return "migration_moved"
    if all(r.verified for r in risks):
        return "migration_clean"
    return "migration_unverified"


def _by_kind(digest: Digest) -> list[tuple[RiskKind, list[Risk], list[str]]]:
    """Leaf risks by kind, in the order of the report's numbered risk items, with the numbers
    of the items that hold them."""
    risks: dict[RiskKind, list[Risk]] = {}
    items: dict[RiskKind, list[str]] = {}
    for index, group in enumerate(risk_groups(digest.risks), start=1):
        risks.setdefault(group.kind, []).extend(group.risks)
        items.setdefault(group.kind, []).append(str(index))
    return [(kind, risks[kind], items[kind]) for kind in risks]


def _risk_recommendation(
    kind: RiskKind, risks: list[Risk], items: list[str], ledger: MentionLedger, rank: dict[int, int]
) -> Statement:
    numbers = list(dict.fromkeys(n for r in risks for n in r.prs))
    numbers.sort(key=lambda n: (rank.get(n, len(rank)), n))
    named = _name_some(ledger, numbers, RECOMMEND_LISTED)
    name = _recommend_name(kind, risks)
    paths = sorted({e.path for r in risks for e in r.evidence if e.path})[:MAX_PATHS]
    if name in ("migration_submodule", "migration_moved"):  # what moved, not .gitmodules
        moved = (str(r.params.get("targets", "")) for r in risks)
        paths = sorted({p for targets in moved for p in targets.split(", ") if p})[:MAX_PATHS]
    params: Params = {
        "count": len(numbers),
        "items": items,
        "paths": paths,
        **_listed("prs", named, len(numbers)),
    }
    return Statement(key=key("recommend", name), params=params, prs=named)


def _week_recommendation(
    name: str, numbers: list[int], ledger: MentionLedger, listed: int = RECOMMEND_LISTED
) -> Statement:
    named = _name_some(ledger, numbers, listed)
    params = {"count": len(numbers), **_listed("prs", named, len(numbers))}
    return Statement(key=key("recommend", name), params=params, prs=named)


def _core_lines(pr: ScoredPR) -> int:
    found = next((f for f in pr.factors if f.name == "core"), None)
    lines = found.params.get("core_lines", 0) if found else 0
    return int(lines) if isinstance(lines, int | float) else 0


def _core_regression(digest: Digest, covered: set[int]) -> list[int]:
    return [
        p.number
        for p in digest.prs
        if p.score >= REGRESSION_SCORE
        and p.number not in covered
        and _core_lines(p) >= SUBSTANTIAL_CORE_LINES
    ]


def build_recommendations(digest: Digest, ledger: MentionLedger) -> list[Statement]:
    """One follow-up per risk kind (naming its PRs), then what the week itself calls for."""
    rank = {p.number: i for i, p in enumerate(digest.prs)}
    kinds = _by_kind(digest)
    out = [_risk_recommendation(kind, risks, items, ledger, rank) for kind, risks, items in kinds]
    covered_kinds = {kind for kind, _, _ in kinds}
    covered = {n for _, risks, _ in kinds for r in risks for n in r.prs}
    regression = _core_regression(digest, covered)
    if regression:
        statement = _week_recommendation("regression_core", regression, ledger)
        statement.params["lines"] = SUBSTANTIAL_CORE_LINES
        out.append(statement)
    removed = [p.number for p in digest.prs if p.files_removed >= REMOVED_FILES_NOTABLE]
    if removed and RiskKind.MIGRATION not in covered_kinds:
        out.append(_week_recommendation("removed_paths", removed, ledger))
    reverts = [p.number for p in digest.prs if p.change_type == "revert"]
    if reverts and RiskKind.FOLLOWUP not in covered_kinds:
        out.append(_week_recommendation("reverts", reverts, ledger))
    if not digest.completeness.complete or digest.completeness.missing:
        params = {"count": len(digest.completeness.missing)}
        out.append(Statement(key=key("recommend", "incomplete"), params=params))
    if not out:
        out.append(Statement(key=key("recommend", "none")))
    return out


def build_narrative(digest: Digest) -> Narrative:
    """The narrative of a digest whose prs, risks, trends and stats are filled."""
    ledger = fixed_ledger(digest)
    # the top stories lead the summary; then each theme names its PRs, before the summary's
    # other sentences, the recommendations and the module table take what mentions are left
    room = SUMMARY_SENTENCES - 2 - len(_incomplete(digest))
    # what users must do comes first, and takes its mentions before any optional PR list
    steps = _steps(digest, ledger) if digest.prs else []
    stepped = {n for st in steps for n in st.prs}
    stories = _stories(digest, ledger, room, stepped) if digest.prs else []
    key_changes = build_key_changes(digest, ledger)
    summary = build_summary(digest, ledger, stories, steps)
    recommendations = build_recommendations(digest, ledger)
    table = build_module_table(digest, ledger)
    return Narrative(
        summary=summary,
        key_changes=key_changes,
        trends=build_trend_statements(digest, table),
        module_table=table,
        recommendations=recommendations,
    )
