"""How each PR of the week relates to PRs merged before it, this week or in earlier stored weeks.

A relation is found, strongest first (one per pair):
- ``revert``: the title is `Revert "<title>"` of the other PR, the body says `Reverts …#N`, or
  the PR removes most of the lines of code the other added (a partial revert, whatever its
  title says);
- ``reland``: the other PR was reverted before this one, and this one names it or carries
  nearly its title (it brings the change back);
- ``fixes`` / ``follows``: the body or title names the other PR (`#N`, `owner/name#N`, a pull
  URL in any org, since a repository may move: volcengine/verl became verl-project/verl); a fix
  `fixes`, anything else `follows`;
- ``supersedes``: the other PR is of the same week and this one rewrites lines of code it added
  (at least MIN_LINES, and a fair share of what this one removes or of what the other added):
  what the other added no longer stands as it was merged;
- ``fixes`` / ``reworks``: it rewrites lines of code an earlier week's PR added (at least
  MIN_LINES, and a fair share of what it removes, so a big refactor is not tied to every PR
  whose lines it happens to touch);
- ``subject``: both titles name the same distinctive thing (an identifier such as
  `TransferQueue` or `e2e_ascend` that few PRs name), and, unless the name is an identifier
  with `_` or inner capitals, they share a module or a changed file; or both are among the
  few PRs of one week whose titles name the same small module set (`[veomni]`), and they
  change the same file.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from service.core.models import FileStatus, PullRequest, Relation, RelationKind
from service.core.risks.base import added_texts, removed_texts
from service.core.titles import parse_title

TITLE_CACHE = 8192
MIN_LINES = 2
# a rework must be at least this share of the lines of code the PR removes, or this many lines
LINE_SHARE = 0.15
MANY_LINES = 20
# or, for a PR of the same week, at least this share of the lines of code the other added
SUPERSEDE_SHARE = 0.5
# removing this share of the lines of code another PR added, when they are this share of what
# the PR removes, undoes it (a partial revert); a rewrite that sweeps them away does not
REVERT_SHARE = 0.6
# a re-land carries at least this share of the reverted PR's title words
RELAND_TITLE_SHARE = 0.75
# a subject name counts when at most this many PRs of the pool name it
SUBJECT_MAX_PRS = 3
# a week's PRs of the same one or two title modules share a subject when they share a file
MODULE_SUBJECT = 2
MIN_TERM_CHARS = 3
MIN_CODE_CHARS = 12
_TRIVIAL = ("#", "//", '"""', "import ", "from ", "return", "else", "pass", "}", ")", "]")
_CODE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
# the `#` first, then what may not stand before it: the engine looks for the `#` alone
_BARE_REF = re.compile(r"#(?<![\w/#&]#)(\d{1,7})\b")
_REPO_REF = re.compile(r"\b[\w.-]+/([\w.-]+)#(\d{1,7})\b")
# what every _REPO_REF match holds: its search is 20x quicker than _REPO_REF's, whose owner
# part is tried at every word of a body
_REPO_REF_HINT = re.compile(r"/[\w.-]+#\d")
_URL_REF = re.compile(r"https?://github\.com/[\w.-]+/([\w.-]+)/(?:pull|issues)/(\d{1,7})\b")
_REVERTS = re.compile(r"\breverts?\s+(?:[\w.-]+/([\w.-]+))?#(\d{1,7})\b", re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z][\w.+-]*[\w+]")
_WORD = re.compile(r"[a-z0-9]+")
# names every title uses, or that are modules: no subject of their own
GENERIC_TERMS = frozenset(
    {"api", "cpu", "gpu", "npu", "llm", "e2e", "moe", "ppo", "grpo", "vlm", "readme", "todo"}
    | {"vllm", "sglang", "megatron", "fsdp", "fsdp2", "mcore", "trtllm", "verl", "ray", "ci"}
)
_STOP_WORDS = frozenset({"a", "an", "the", "and", "or", "of", "for", "in", "on", "to", "with"})


@dataclass
class Pool:
    """The week's PRs and the earlier ones they may relate to, with what is read from each."""

    repo_name: str
    week: dict[int, PullRequest]
    earlier_week: dict[int, str]  # earlier PR → its week label
    by_number: dict[int, PullRequest] = field(default_factory=dict)
    removed: dict[int, dict[str, frozenset[str]]] = field(default_factory=dict)
    reverted_by: dict[int, PullRequest] = field(default_factory=dict)
    term_prs: dict[str, set[int]] = field(default_factory=dict)
    # (week label, the title's modules) → its PRs: a small module's PRs of one week
    module_prs: dict[tuple[str, frozenset[str]], set[int]] = field(default_factory=dict)
    module_count: dict[str, int] = field(default_factory=dict)
    # (path, line of code) → the PRs that add it, for the lines this week's PRs remove
    line_owners: dict[tuple[str, str], set[int]] = field(default_factory=dict)
    added_totals: dict[int, int] = field(default_factory=dict)
    # PR → its patches by path (the PRs' own strings, no copy), for the few PRs asked about
    patches: dict[int, dict[str, str]] = field(default_factory=dict)
    # (PR, path) → the lines of code its patch adds there (asked by `_rewritten_lines`)
    added_codes: dict[tuple[int, str], frozenset[str]] = field(default_factory=dict)
    # the last PR asked about: how many of the lines of code it removes each PR of the pool added
    owned: tuple[int | None, Counter[int]] = field(default_factory=lambda: (None, Counter()))


def code_line(text: str) -> str | None:
    """The text stripped, when it reads as a line of code that says something (not blank,
    punctuation, a comment or an import)."""
    stripped = text.strip()
    if len(stripped) < MIN_CODE_CHARS or stripped.startswith(_TRIVIAL):
        return None
    return stripped if _CODE_WORD.search(stripped) else None


def _codes(lines: Iterable[str]) -> frozenset[str]:
    """`code_line` of each line, kept when it is one (inlined: ~300,000 lines a big week)."""
    out = set()
    for line in lines:
        stripped = line.strip()
        if len(stripped) < MIN_CODE_CHARS or stripped.startswith(_TRIVIAL):
            continue
        if _CODE_WORD.search(stripped):
            out.add(stripped)
    return frozenset(out)


def referenced(pr: PullRequest, repo_name: str) -> set[int]:
    """PR (or issue) numbers the title or body names in this repository, under any owner."""
    text = f"{pr.title}\n{pr.body or ''}"
    if "#" not in text and "/pull/" not in text and "/issues/" not in text:
        return set()
    out = {int(n) for n in _BARE_REF.findall(text)}
    patterns = (_REPO_REF,) if _REPO_REF_HINT.search(text) else ()
    for pattern in (*patterns, _URL_REF):
        out.update(int(n) for name, n in pattern.findall(text) if name.lower() == repo_name)
    return out


def older_references(
    repo: str, prs: Sequence[PullRequest], known: Collection[int], limit: int
) -> list[int]:
    """Older PRs the week's titles and bodies name that are not in `known` (#5031: "#4280
    broke…"): the most named first, then the newest, at most `limit`. A number may be an issue:
    whoever fetches them keeps the merged PRs only."""
    name = repo.rpartition("/")[2].lower()
    counts: dict[int, int] = {}
    for pr in prs:
        for number in referenced(pr, name):
            if number < pr.number and number not in known:
                counts[number] = counts.get(number, 0) + 1
    return sorted(counts, key=lambda n: (-counts[n], -n))[:limit]


def _reverts_named(pr: PullRequest, repo_name: str) -> set[int]:
    found = _REVERTS.findall(pr.body or "")
    return {int(n) for name, n in found if not name or name.lower() == repo_name}


def description(title: str) -> str:
    """What the title says, without `[modules] type:` (a revert: the reverted title's)."""
    parsed = parse_title(title)
    if parsed.is_revert and parsed.reverted_title:
        return parse_title(parsed.reverted_title).description
    return parsed.description


@functools.lru_cache(maxsize=TITLE_CACHE)
def subject_terms(title: str) -> frozenset[str]:
    """Distinctive names in the title's description: identifiers (`e2e_ascend`,
    `TransferQueue`), acronyms (`MTP`) and names with digits (`fp8`), lower-cased."""
    out = set()
    for token in _TOKEN.findall(description(title)):
        word = token.strip(".-")
        named = (
            "_" in word
            or (word[0].isupper() and re.search(r"[a-z][A-Z]", word))
            or (word.isupper() and word.isalpha())
            or (re.search(r"\d", word) and re.search(r"[A-Za-z]", word))
        )
        if named and len(word) >= MIN_TERM_CHARS and word.lower() not in GENERIC_TERMS:
            out.add(word.lower())
    return frozenset(out)


def _is_identifier(term: str, title: str) -> bool:
    return "_" in term or any(
        t.lower() == term and t[0].isupper() and re.search(r"[a-z][A-Z]", t)
        for t in _TOKEN.findall(title)
    )


@functools.lru_cache(maxsize=TITLE_CACHE)
def _title_words(title: str) -> frozenset[str]:
    return frozenset(_WORD.findall(description(title).lower().replace("_", " "))) - _STOP_WORDS


def _close_titles(original: PullRequest, later: PullRequest) -> bool:
    """Whether `later`'s title carries nearly all the words of `original`'s."""
    return _carries(_title_words(original.title), _title_words(later.title))


def _carries(words: frozenset[str], later: frozenset[str]) -> bool:
    """Whether the `later` title's words hold nearly all of `words` (an earlier title's)."""
    return bool(words) and len(words & later) >= RELAND_TITLE_SHARE * len(words)


def _is_fix(pr: PullRequest) -> bool:
    return parse_title(pr.title).change_type == "fix"


def _is_revert(pr: PullRequest) -> bool:
    return parse_title(pr.title).is_revert


def build_pool(
    repo: str, prs: Sequence[PullRequest], earlier: Mapping[str, Sequence[PullRequest]]
) -> Pool:
    """The week's PRs and each earlier week's (week label → PRs), each patch read once: the
    lines of code the week's PRs remove, and which PRs of the pool added each of them."""
    pool = Pool(
        repo_name=repo.rpartition("/")[2].lower(),
        week={p.number: p for p in prs},
        earlier_week={p.number: label for label, week in earlier.items() for p in week},
    )
    every = [p for week in earlier.values() for p in week if p.number not in pool.week]
    pool.by_number = {p.number: p for p in (*every, *prs)}
    _read_lines(pool, prs)
    for pr in pool.by_number.values():
        for term in subject_terms(pr.title):
            pool.term_prs.setdefault(term, set()).add(pr.number)
        pool.module_prs.setdefault(_module_key(pool, pr), set()).add(pr.number)
        for module in _module_key(pool, pr)[1]:
            pool.module_count[module] = pool.module_count.get(module, 0) + 1
    _find_reverted(pool)
    return pool


def _patches(pr: PullRequest) -> dict[str, str]:
    """The PR's patches by path (the last one listed for a path)."""
    return {change.path: change.patch for change in pr.files if change.patch}


def _added_lines(pool: Pool, pr: PullRequest, path: str) -> list[str]:
    """The text of the lines the PR's patch of `path` adds, read from the patch when asked:
    the pool keeps no copy of the changed lines of every patch of the weeks it reads."""
    if pr.number not in pool.patches:
        pool.patches[pr.number] = _patches(pr)
    return added_texts(pool.patches[pr.number].get(path))


def _read_lines(pool: Pool, prs: Sequence[PullRequest]) -> None:
    """The lines of code the week's PRs remove (not from deleted files: a deleted file is no
    rework of the lines in it) and which PRs of the pool added each."""
    for pr in prs:
        pool.removed[pr.number] = {}
        status = {change.path: change.status for change in pr.files}
        for path, patch in _patches(pr).items():
            if status[path] == FileStatus.REMOVED:
                continue
            codes = _codes(removed_texts(patch))
            if codes:
                pool.removed[pr.number][path] = codes
                pool.line_owners.update({(path, c): set() for c in codes})
    asked = {path for path, _ in pool.line_owners}  # a patch of another file adds none of them
    for pr in pool.by_number.values():
        for path, patch in _patches(pr).items():
            if path not in asked:
                continue
            for text in added_texts(patch):
                owners = pool.line_owners.get((path, text.strip()))
                if owners is not None:  # only the lines a PR of the week removes are asked for
                    owners.add(pr.number)


def _find_reverted(pool: Pool) -> None:
    """Which PR each revert of the pool takes back (by quoted title, else by `Reverts #N`)."""
    titles: dict[str, int] = {}
    for pr in sorted(pool.by_number.values(), key=lambda p: p.merged_at):
        parsed = parse_title(pr.title)
        if parsed.is_revert:
            wanted = " ".join((parsed.reverted_title or "").lower().split())
            target = titles.get(wanted)
            named = [n for n in _reverts_named(pr, pool.repo_name) if n in pool.by_number]
            number = target if target is not None else (named[0] if named else None)
            if number is not None and number != pr.number:
                pool.reverted_by.setdefault(number, pr)
        titles[" ".join(pr.title.lower().split())] = pr.number


def _shared_lines(pool: Pool, pr: PullRequest, other: PullRequest) -> int:
    """Lines of code `pr` removes that `other` added to the same file."""
    if pool.owned[0] != pr.number:  # counted once for the PR, not once per PR it may relate to
        removed = pool.removed.get(pr.number, {})
        owners = pool.line_owners
        counts = Counter(
            n for path, codes in removed.items() for c in codes for n in owners[(path, c)]
        )
        pool.owned = (pr.number, counts)
    return pool.owned[1][other.number]


def _rewritten_lines(pool: Pool, pr: PullRequest, other: PullRequest) -> int:
    """Lines of code `pr` removes that `other` added to the same file, and does not put back
    as they were (a line moved or re-indented in the file is not rewritten)."""
    count = 0
    for path, codes in pool.removed.get(pr.number, {}).items():
        if (pr.number, path) not in pool.added_codes:
            pool.added_codes[(pr.number, path)] = _codes(_added_lines(pool, pr, path))
        put_back = pool.added_codes[(pr.number, path)]
        owned = (c for c in codes if other.number in pool.line_owners[(path, c)])
        count += sum(1 for c in owned if c not in put_back)
    return count


def _supersedes(pool: Pool, pr: PullRequest, other: PullRequest, removed: int) -> bool:
    """`pr` rewrites lines of code `other`, of the same week, added: at least MIN_LINES, and
    a fair share of what `pr` removes or of what `other` added."""
    if other.number not in pool.week:
        return False
    lines = _rewritten_lines(pool, pr, other)
    return lines >= MIN_LINES and (
        lines >= SUPERSEDE_SHARE * _added_total(pool, other)
        or lines >= MANY_LINES
        or lines >= LINE_SHARE * removed
    )


def _added_total(pool: Pool, other: PullRequest) -> int:
    """Lines of code `other` added (asked only of the few PRs a rework may undo)."""
    if other.number not in pool.added_totals:
        patches = _patches(other)
        added = (added_texts(patches.get(f.path)) for f in other.files)
        pool.added_totals[other.number] = sum(len(_codes(lines)) for lines in added)
    return pool.added_totals[other.number]


def _reverted_before(pool: Pool, other: PullRequest, pr: PullRequest) -> bool:
    revert = pool.reverted_by.get(other.number)
    return revert is not None and revert.number != pr.number and revert.merged_at <= pr.merged_at


def _relation(pool: Pool, pr: PullRequest, other: PullRequest, refs: set[int]) -> Relation | None:
    """The strongest relation of `pr` to the earlier-merged `other`, if any."""
    kind: RelationKind | None = None
    lines = _shared_lines(pool, pr, other)
    if pool.reverted_by.get(other.number) is pr:
        kind = RelationKind.REVERT
    elif (
        _reverted_before(pool, other, pr)
        and not _is_revert(pr)
        and (other.number in refs or _close_titles(other, pr))
    ):
        kind = RelationKind.RELAND
    if kind is None and other.number in refs:
        kind = RelationKind.FIXES if _is_fix(pr) else RelationKind.FOLLOWS
    if kind is None and lines >= MIN_LINES and not _is_revert(other):
        kind = _by_lines(pool, pr, other, lines)
    if kind is None and _same_subject(pool, pr, other):
        kind = RelationKind.SUBJECT
    if kind is None:
        return None
    return Relation(
        pr=pr.number,
        other=other.number,
        kind=kind,
        week=pool.earlier_week.get(other.number, "") if other.number not in pool.week else "",
        other_title=other.title,
        lines=lines,
    )


def _by_lines(pool: Pool, pr: PullRequest, other: PullRequest, lines: int) -> RelationKind | None:
    removed = sum(len(c) for c in pool.removed.get(pr.number, {}).values())
    if _is_revert(pr):
        return None  # a revert relates to what it reverts, not to what it touches on the way
    undoes = lines >= REVERT_SHARE * removed and lines >= REVERT_SHARE * _added_total(pool, other)
    if undoes and not _reverted_before(pool, other, pr):
        return RelationKind.REVERT
    if _supersedes(pool, pr, other, removed):
        return RelationKind.SUPERSEDES
    if lines >= MANY_LINES or lines >= LINE_SHARE * removed:
        return RelationKind.FIXES if _is_fix(pr) else RelationKind.REWORKS
    return None


def _module_key(pool: Pool, pr: PullRequest) -> tuple[str, frozenset[str]]:
    week = "" if pr.number in pool.week else pool.earlier_week.get(pr.number, "")
    return week, frozenset(parse_title(pr.title).modules)


def _same_module(pool: Pool, pr: PullRequest) -> set[int]:
    """The PRs of `pr`'s week whose titles name just its modules (at most MODULE_SUBJECT of
    them, each named by so few PRs of the pool that it is a subject, not a busy area)."""
    week, modules = _module_key(pool, pr)
    if not modules or len(modules) > MODULE_SUBJECT:
        return set()
    if any(pool.module_count.get(m, 0) > SUBJECT_MAX_PRS for m in modules):
        return set()
    return pool.module_prs.get((week, modules), set())


def _shared_files(pr: PullRequest, other: PullRequest) -> set[str]:
    paths = {f.path for f in pr.files} & {f.path for f in other.files}
    return {p for p in paths if "_generated" not in p}


def _same_subject(pool: Pool, pr: PullRequest, other: PullRequest) -> bool:
    if other.number in _same_module(pool, pr) and _shared_files(pr, other):
        return True
    shared = subject_terms(pr.title) & subject_terms(other.title)
    for term in shared:
        if len(pool.term_prs.get(term, ())) > SUBJECT_MAX_PRS:
            continue
        if _is_identifier(term, pr.title) or _is_identifier(term, other.title):
            return True
        modules = set(parse_title(pr.title).modules) & set(parse_title(other.title).modules)
        if _shared_files(pr, other) or modules:
            return True
    return False


def _candidates(pool: Pool, pr: PullRequest, refs: set[int]) -> set[int]:
    """The PRs `pr` may relate to: those it names, reverts or may bring back, whose added
    lines it removes, or that share a rare subject name with it (never all pairs: a week of
    2,000 PRs would be four million)."""
    out = {n for n in refs if n in pool.by_number}
    if not _is_revert(pr):  # what it may bring back: a reverted PR with nearly its title
        words = _title_words(pr.title)
        out |= {
            n for n in pool.reverted_by if _carries(_title_words(pool.by_number[n].title), words)
        }
    out |= {n for n, revert in pool.reverted_by.items() if revert is pr}
    for path, codes in pool.removed.get(pr.number, {}).items():
        for code in codes:
            out |= pool.line_owners.get((path, code), set())
    for term in subject_terms(pr.title):
        owners = pool.term_prs.get(term, set())
        if len(owners) <= SUBJECT_MAX_PRS:
            out |= owners
    out |= _same_module(pool, pr)
    out.discard(pr.number)
    return out


def find_relations(
    repo: str,
    prs: Sequence[PullRequest],
    earlier: Mapping[str, Sequence[PullRequest]] | None = None,
) -> list[Relation]:
    """Every relation of a PR of `prs` to a PR merged before it (of `prs` or of the `earlier`
    weeks: week label → PRs), in merge order of the later PR, strongest link first."""
    pool = build_pool(repo, prs, earlier or {})
    ordered = sorted(pool.by_number.values(), key=lambda p: (p.merged_at, p.number))
    position = {p.number: i for i, p in enumerate(ordered)}
    rank = {k: i for i, k in enumerate(RelationKind)}
    out: list[Relation] = []
    for index, pr in enumerate(ordered):
        if pr.number not in pool.week:
            continue
        refs = referenced(pr, pool.repo_name) - {pr.number}
        before = sorted(n for n in _candidates(pool, pr, refs) if position[n] < index)
        found = [
            r for n in before if (r := _relation(pool, pr, pool.by_number[n], refs)) is not None
        ]
        out.extend(sorted(found, key=lambda r: (rank[r.kind], -r.lines, -r.other)))
    return out
