"""The review discussion of a merged PR that a reader needs: standing change requests,
unresolved threads, and what people other than its author wrote — review bodies, inline review
comments (with their file and line) and the conversation's comments — one line each, newest
first, at most MAX_NOTES.

Only what GitHub gave counts: a PR whose reviews are unknown (git history, the REST fallback)
has no discussion (None), never an empty one that would read as "nobody objected".
"""

from __future__ import annotations

from datetime import UTC, datetime

from service.core.models import Discussion, PullRequest, Review, ReviewNote, ReviewState

MAX_NOTES = 8
NOTE_CHARS = 160
_ELLIPSIS = "…"
_OLDEST = datetime.min.replace(tzinfo=UTC)
_VERDICTS = (ReviewState.APPROVED, ReviewState.CHANGES_REQUESTED, ReviewState.DISMISSED)
_STANDING = ("changes_requested", "thread")


def one_line(text: str, limit: int = NOTE_CHARS) -> str:
    """The first non-empty line of `text` that is not quoted reply, whitespace folded, cut
    at `limit` characters."""
    lines = [line.strip() for line in text.splitlines()]
    first = next((line for line in lines if line and not line.startswith(">")), "")
    first = " ".join(first.split())
    return first if len(first) <= limit else first[: limit - 1] + _ELLIPSIS


def standing_requests(reviews: list[Review]) -> list[Review]:
    """Each reviewer's latest verdict when it requests changes (comments don't lift it)."""
    latest: dict[str, Review] = {}
    for review in reviews:
        if review.state in _VERDICTS:
            latest[review.author or ""] = review
    return [r for r in latest.values() if r.state == ReviewState.CHANGES_REQUESTED]


def _review_notes(pr: PullRequest, standing: list[Review]) -> list[ReviewNote]:
    notes = []
    for review in pr.reviews or []:
        text = one_line(review.body)
        if not text or (pr.author and review.author == pr.author):
            continue
        kind = "changes_requested" if review in standing else "review"
        notes.append(ReviewNote(author=review.author, text=text, at=review.submitted_at, kind=kind))
    return notes


def _thread_notes(pr: PullRequest) -> list[ReviewNote]:
    return [
        ReviewNote(
            author=t.author,
            text=one_line(t.body),
            at=t.created_at,
            kind="thread",
            path=t.path,
            line=t.line,
        )
        for t in pr.unresolved_threads
        if one_line(t.body)
    ]


def _comment_notes(pr: PullRequest) -> list[ReviewNote]:
    """The conversation's comments and the inline review comments of resolved threads (an
    unresolved thread is said as one), the PR author's own replies aside."""
    open_threads = {(t.path, t.line, t.author) for t in pr.unresolved_threads}
    notes = []
    for comment in (*pr.inline_comments, *pr.conversation):
        text = one_line(comment.body)
        if not text or (pr.author and comment.author == pr.author):
            continue
        where = (comment.path, comment.line, comment.author)
        if comment.path is not None and where in open_threads:
            continue
        kind = "inline" if comment.path else "comment"
        notes.append(
            ReviewNote(
                author=comment.author,
                text=text,
                at=comment.created_at,
                kind=kind,
                path=comment.path,
                line=comment.line,
            )
        )
    return notes


def discussion(pr: PullRequest) -> Discussion | None:
    """The PR's review discussion, or None when GitHub gave no reviews."""
    if pr.reviews is None:
        return None
    standing = standing_requests(pr.reviews)
    notes = sorted(
        _review_notes(pr, standing) + _thread_notes(pr) + _comment_notes(pr),
        key=lambda n: n.at or _OLDEST,
        reverse=True,
    )
    # what still stands (change requests, open threads) is kept before other comments when
    # there are more than MAX_NOTES; what is kept is shown newest first
    open_first = sorted(notes, key=lambda n: n.kind not in _STANDING)[:MAX_NOTES]
    notes = [n for n in notes if n in open_first]
    unresolved = max(len(pr.unresolved_threads), pr.review_threads_unresolved or 0)
    return Discussion(
        standing=[r.author or "" for r in standing],
        unresolved=unresolved,
        notes=notes[:MAX_NOTES],
    )
