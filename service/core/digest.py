"""build_digest: classify, score, detect risks, trends and narrative for one collected week."""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime

from service.core.classify import Classification, classify_pr
from service.core.models import (
    CollectedWeek,
    Digest,
    FileStatus,
    PullRequest,
    Risk,
    ScoredPR,
    Severity,
    Stats,
)
from service.core.narrative import build_narrative
from service.core.profile import RepoProfile
from service.core.risks import detect_risks
from service.core.score import score_pr
from service.core.titles import parse_title
from service.core.trends import build_trends

# verl's PR template: the first section says what the PR does
_WHAT_HEADING = re.compile(
    r"^\s*#{1,6}\s*\**\s*what does this pr do\b.*$", re.IGNORECASE | re.MULTILINE
)
_HEADING = re.compile(r"^\s*#{1,6}\s", re.MULTILINE)
_HTML = re.compile(r"<!--.*?-->|<[^<>]*>", re.DOTALL)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__)(.*?)\1")
_SPACE = re.compile(r"\s+")
_URL = re.compile(r"https?://\S+")
_LIST_MARK = re.compile(r"^(?:[-*•+]|\d{1,2}[.)]|\[[ xX]\])\s+")
_BOLD_LINE = re.compile(r"^(\*\*|__)[^*_]+\1:?$")  # `**Summary**` is a heading, not a gist
_REVERTS_REF = re.compile(r"\breverts\s+(?:[\w.-]+/[\w.-]+)?#(\d+)", re.IGNORECASE)
GIST_MAX_CHARS = 160
# cut at the first sentence end after this many characters ("1. Fix …" is not a sentence)
GIST_MIN_SENTENCE = 40
_SENTENCE_END = re.compile(r"(?<=[^\d\s][.!?。])(?<!e\.g\.)(?<!i\.e\.)\s")
# shorter than this ("As title", "N/A", "To fix the issue") says nothing the title does not
GIST_MIN_CHARS = 20
GIST_MIN_WORDS = 5
_THIS_PR = re.compile(r"(?<=[.!?。] )(?:this (?:pr|pull request|change)|we)\b", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff]")
ELLIPSIS = "…"


def _section_text(body: str) -> str:
    heading = _WHAT_HEADING.search(body)
    if not heading:
        return ""
    rest = body[heading.end() :]
    following = _HEADING.search(rest)
    return rest[: following.start()] if following else rest


def _first_paragraph(text: str) -> str:
    """The first paragraph that is not the template's hint; list items joined with `; `."""
    text = _URL.sub("", _LINK.sub(r"\1", _IMAGE.sub("", _HTML.sub("", text))))
    items: list[str] = []
    quoted = False  # a `>` line and its lazy continuation lines are the template's hint
    fenced = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```"):  # code is no gist: a fence ends the paragraph
            if items:
                break
            fenced = not fenced
            continue
        if fenced:
            continue
        if not line:
            quoted = False
            if items:
                break
            continue
        quoted = quoted or line.startswith(">")
        if quoted or _BOLD_LINE.match(line):
            continue
        item = _LIST_MARK.sub("", line)
        if item != line or not items:
            items.append(item)
        else:
            items[-1] += " " + line
    heads = [i.strip().rstrip(";.") for i in items[:-1]]
    joined = "; ".join([*heads, *(i.strip() for i in items[-1:])])
    return _SPACE.sub(" ", _EMPHASIS.sub(r"\2", joined)).strip().rstrip(" ,;:(")


def _shorten(text: str, limit: int = GIST_MAX_CHARS) -> str:
    """The first sentence when it is long enough to say something, else a cut at a word."""
    end = _SENTENCE_END.search(text, GIST_MIN_SENTENCE)
    if end and end.start() <= limit:
        return text[: end.start()]
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + ELLIPSIS


def _too_few_words(text: str) -> bool:
    """A note such as "test with Qwen3-30B." says less than the title (CJK text has no spaces)."""
    return not _CJK.search(text) and len(text.split()) < GIST_MIN_WORDS


def gist_of(pr: PullRequest) -> str:
    """One line: the body's "What does this PR do?" section, else the title's description."""
    gist = _first_paragraph(_section_text(pr.body or ""))
    this_pr = _THIS_PR.search(gist)
    if this_pr and this_pr.start() > 0:  # context first, then "This PR adds …": take the latter
        gist = gist[this_pr.start() :]
    if len(gist) < GIST_MIN_CHARS or _too_few_words(gist):
        gist = parse_title(pr.title).description or pr.title.strip()
    # no closing full stop: sentences of the catalogs punctuate around the gist
    return _shorten(_SPACE.sub(" ", gist).strip()).rstrip("。.")


def _reverted_numbers(prs: list[PullRequest], classes: dict[int, Classification]) -> set[int]:
    """PRs of the week that a revert of the week undoes (by body reference or quoted title)."""
    titles = {pr.title.strip(): pr.number for pr in prs}
    out: set[int] = set()
    for pr in prs:
        c = classes[pr.number]
        if not c.is_revert:
            continue
        out.update(int(n) for n in _REVERTS_REF.findall(pr.body or ""))
        if c.reverted_title and c.reverted_title.strip() in titles:
            out.add(titles[c.reverted_title.strip()])
    return out


def _scored(
    pr: PullRequest, c: Classification, profile: RepoProfile, *, reverted: bool, risks: int
) -> ScoredPR:
    score, factors = score_pr(pr, c, profile, revert_involved=reverted or c.is_revert)
    return ScoredPR(
        number=pr.number,
        title=pr.title,
        url=pr.url,
        author=pr.author,
        merged_at=pr.merged_at,
        modules=c.modules,
        change_type=c.change_type,
        breaking=c.breaking,
        category=c.category,
        gist=gist_of(pr),
        additions=pr.additions,
        deletions=pr.deletions,
        changed_files=pr.changed_files or len(pr.files),
        files_removed=sum(1 for f in pr.files if f.status == FileStatus.REMOVED),
        paths=list(dict.fromkeys(p for f in pr.files for p in (f.path, f.previous_path) if p)),
        score=score,
        factors=factors,
        risk_count=risks,
    )


def _stats(prs: list[PullRequest], scored: list[ScoredPR], risks: list[Risk]) -> Stats:
    severities = Counter(r.severity for r in risks)
    return Stats(
        prs=len(scored),
        additions=sum(p.additions for p in scored),
        deletions=sum(p.deletions for p in scored),
        changed_files=sum(p.changed_files for p in scored),
        contributors=len({p.author for p in prs if p.author}),
        risks_high=severities[Severity.HIGH],
        risks_medium=severities[Severity.MEDIUM],
        risks_low=severities[Severity.LOW],
    )


def build_digest(
    week: CollectedWeek,
    profile: RepoProfile,
    *,
    language: str,
    now: datetime,
    previous: Digest | None = None,
    earlier: list[PullRequest] | None = None,
    discussion_url: str = "",
) -> Digest:
    """The digest of `week`: scored PRs (most important first), risks, trends and narrative."""
    prs = week.prs
    classes = {pr.number: classify_pr(pr, profile) for pr in prs}
    references = week.remaining_references if week.references_checked else None
    risks = detect_risks(prs, profile, earlier=earlier or [], references=references)
    per_pr = Counter(n for risk in risks for n in set(risk.prs))
    reverted = _reverted_numbers(prs, classes)
    scored = [
        _scored(
            pr,
            classes[pr.number],
            profile,
            reverted=pr.number in reverted,
            risks=per_pr[pr.number],
        )
        for pr in prs
    ]
    scored.sort(key=lambda s: (-s.score, s.number))
    trends = build_trends(scored, prs, previous=previous)
    stats = _stats(prs, scored, risks)
    stats.first_time_contributors = sum(1 for c in trends.contributors if c.first_time)
    digest = Digest(
        repo=week.repo,
        week=week.window.label,
        timezone=week.window.timezone,
        start=week.window.start,
        end=week.window.end,
        language=language,
        generated_at=now,
        source=week.source,
        stats=stats,
        prs=scored,
        risks=risks,
        trends=trends,
        completeness=week.completeness,
        discussion_url=discussion_url,
    )
    digest.narrative = build_narrative(digest)
    return digest
