"""The `pr N` answer's review discussion as lines of text, escaped for one target (the same
lines for Slack, Feishu and the terminal; each renderer passes its escape function)."""

from __future__ import annotations

from collections.abc import Callable

from service.core.models import Discussion, ReviewNote
from service.render.strings import Translator

UNKNOWN_AUTHOR = "?"
NOTE_KEYS = {
    "changes_requested": "cmd.answer.discussion_note_request",
    "thread": "cmd.answer.discussion_note_thread",
}


def _where(note: ReviewNote) -> str:
    if note.path and note.line is not None:
        return f"{note.path}:{note.line}"
    return note.path or ""


def _note(tr: Translator, note: ReviewNote, escape: Callable[[str], str]) -> str:
    key = NOTE_KEYS.get(note.kind, "cmd.answer.discussion_note")
    if key == NOTE_KEYS["thread"] and not _where(note):
        key = "cmd.answer.discussion_note"
    return tr.t(
        key,
        author=escape(note.author or UNKNOWN_AUTHOR),
        text=escape(note.text),
        where=escape(_where(note)),
    )


def discussion_lines(
    tr: Translator, discussion: Discussion | None, escape: Callable[[str], str]
) -> list[str]:
    """Standing change requests, unresolved threads, then each comment (newest first); []
    when GitHub gave no reviews, one line saying so when reviewers wrote nothing."""
    if discussion is None:
        return []
    lines: list[str] = []
    if discussion.standing:
        reviewers = ", ".join(escape(r or UNKNOWN_AUTHOR) for r in discussion.standing)
        lines.append(tr.t("cmd.answer.discussion_standing", reviewers=reviewers))
    if discussion.unresolved:
        lines.append(tr.t("cmd.answer.discussion_unresolved", count=discussion.unresolved))
    lines.extend(_note(tr, note, escape) for note in discussion.notes)
    return lines or [tr.t("cmd.answer.discussion_quiet")]
