"""Command answers in words: the one sentence of an answer (a failure with its cause), the lines
of a subscriptions list, a PR's review discussion and its point on a chat card."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from service.core.models import Discussion, Relation, ReviewNote, ScoredPR
from service.render.environment import period_label
from service.render.speaking.voice import Voice

if TYPE_CHECKING:  # the typed answers' pydantic models are built when a command answers
    from service.commands.kinds import Said, Sentence, SubscriptionView

UNKNOWN_AUTHOR = "?"
NOTE_KEYS = {
    "changes_requested": "cmd.answer.discussion_note_request",
    "thread": "cmd.answer.discussion_note_thread",
    "inline": "cmd.answer.discussion_note_inline",
}


def _where(note: ReviewNote) -> str:
    if note.path and note.line is not None:
        return f"{note.path}:{note.line}"
    return note.path or ""


class AnswerWords(Voice):
    """The sentences of command answers, in the caller's language."""

    def sentence(self, said: Sentence) -> str:
        """A catalog sentence of an answer, its values escaped."""
        return self.plain(said.key, said.params)

    def answer_sentence(self, answer: Said) -> str:
        """A one-sentence answer; a failure's cause (`reason`) is worded first, in the same
        language, and said inside it."""
        from service.commands.kinds import ErrorAnswer, RegenerateAnswer

        cause = answer.reason if isinstance(answer, RegenerateAnswer | ErrorAnswer) else None
        if cause is None:
            return self.plain(answer.key, answer.params)
        return self.plain(answer.key, answer.params, reason=self.sentence(cause))

    def subscription_line(self, view: SubscriptionView) -> str:
        """`scope · cadence · filter · language` of one subscription (the filter is the
        channel's own text)."""
        shown = self.target.escape(view.filter) if view.filter else None
        return self.tr.t(
            "cmd.answer.subscription_line",
            repo=self.target.escape(view.repo),
            cadence=self.tr.t(f"cmd.answer.cadence_{view.cadence}"),
            filter=shown or self.tr.t("cmd.answer.subscription_all"),
            language=view.language or "-",
        )

    def card_point(self, pr: ScoredPR, shown: Callable[[str], str]) -> str:
        """What the PR does on a chat card: its gist (through `shown`, which escapes and cuts),
        else what its files show (never its title); '' for neither."""
        if pr.gist:
            return shown(pr.gist)
        if pr.files_gist is not None:
            return self.plain(pr.files_gist.key, pr.files_gist.params)
        return ""

    def _note(self, note: ReviewNote) -> str:
        key = NOTE_KEYS.get(note.kind, "cmd.answer.discussion_note")
        if key in (NOTE_KEYS["thread"], NOTE_KEYS["inline"]) and not _where(note):
            key = "cmd.answer.discussion_note"
        return self.tr.t(
            key,
            author=self.target.escape(note.author or UNKNOWN_AUTHOR),
            text=self.target.escape(note.text),
            where=self.target.escape(_where(note)),
        )

    def relation_lines(self, relations: list[Relation]) -> list[str]:
        """`pr N`'s earlier work: how it relates to each PR (number, title, and its week when
        that is an earlier one), titles escaped."""
        lines = []
        for relation in relations:
            key = "cmd.answer.relation_older" if relation.week else "cmd.answer.relation"
            lines.append(  # a family's PR of another repository: `verl-omni#45`
                self.plain(
                    key,
                    {"number": relation.other},
                    how=self.tr.t(f"cmd.answer.relation_kind.{relation.kind.value}"),
                    title=self.target.escape(relation.other_title),
                    week=self.target.escape(period_label(relation.week, self.tr.lang)),
                )
            )
        return lines

    def older_work(self, number: int) -> str:
        """What PR `number` builds on in earlier weeks, for the full report's PR table
        ("builds on: fixes up #4715 “…” (2026-W03)"), or ''."""
        relations = [r for r in self.digest.relations if r.pr == number and r.week]
        if not relations:
            return ""
        lines = self.relation_lines(relations)
        return self.tr.t("report.top.older_work", links=self.sep.join(lines))

    def discussion_lines(self, discussion: Discussion | None) -> list[str]:
        """`pr N`'s review discussion: standing change requests, unresolved threads, then each
        comment (newest first); [] when GitHub gave no reviews, one line saying so when
        reviewers wrote nothing."""
        if discussion is None:
            return []
        lines: list[str] = []
        if discussion.standing:
            escape = self.target.escape
            reviewers = ", ".join(escape(r or UNKNOWN_AUTHOR) for r in discussion.standing)
            lines.append(self.tr.t("cmd.answer.discussion_standing", reviewers=reviewers))
        if discussion.unresolved:
            count = discussion.unresolved
            lines.append(self.tr.t("cmd.answer.discussion_unresolved", count=count))
        lines.extend(self._note(note) for note in discussion.notes)
        return lines or [self.tr.t("cmd.answer.discussion_quiet")]
