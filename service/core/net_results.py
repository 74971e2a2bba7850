"""What a story of reverts comes to: the net result of a change, its revert and its re-land, told
as one statement per reverted PR (words in templates/strings/*/narrative.toml, `narrative.net.*`
for a key-change clause and `narrative.summary.net.*` for a summary sentence).

- re-landed: the change a revert took out is back, in the re-landing PR's form;
- cancelled: a revert that takes out exactly what a PR of the same week added (the same files,
  its additions and deletions swapped): those files do not change over the week;
- undone: the change stays taken out (partly or wholly: the revert's title says which)."""

from __future__ import annotations

from service.core.models import Digest, RelationKind, ScoredPR, Statement, Story
from service.core.relations import description

PREFIX = "narrative"
# a story tells at most this many reverted PRs' net results
MAX_NET = 2
MAX_PATHS = 2
RELANDED = "relanded"
CANCELLED = "cancelled"
UNDONE = "undone"


def _cancels(revert: ScoredPR, reverted: ScoredPR) -> bool:
    """Whether `revert` takes out exactly what `reverted` added: the same files, its lines
    added and removed swapped (a same-week pair: the files end the week as they began it)."""
    return (
        bool(revert.paths)
        and set(revert.paths) == set(reverted.paths)
        and (revert.additions, revert.deletions) == (reverted.deletions, reverted.additions)
    )


def net_results(story: Story, digest: Digest, *, summary: bool = False) -> list[Statement]:
    """The net result of each PR the story's PRs revert (at most MAX_NET), in the order the
    story relates them."""
    reverts = [r for r in story.relations if r.kind == RelationKind.REVERT]
    relands = {r.other: r.pr for r in story.relations if r.kind == RelationKind.RELAND}
    base = (PREFIX, "summary", "net") if summary else (PREFIX, "net")
    out: list[Statement] = []
    for relation in reverts:
        if len(out) == MAX_NET:
            break
        params: dict[str, str | int | float | list[int] | list[str]] = {
            "reverted": relation.other,
            "revert_pr": relation.pr,
            "week": relation.week,
        }
        reverted, revert = digest.pr(relation.other), digest.pr(relation.pr)
        if relation.other in relands:
            kind = RELANDED
            params["reland_pr"] = relands[relation.other]
        elif not relation.week and reverted and revert and _cancels(revert, reverted):
            kind = CANCELLED
            params["paths"] = sorted(revert.paths)[:MAX_PATHS]
            params["count"] = len(revert.paths)
        else:
            kind = UNDONE
        if summary:  # the summary's sentence names what was reverted by its title
            shown = reverted.title if reverted else relation.other_title
            params["title"] = description(shown)
        prs = [n for n in (relation.other, relation.pr, relands.get(relation.other)) if n]
        out.append(Statement(key=".".join((*base, kind)), params=params, prs=prs))
    return out
