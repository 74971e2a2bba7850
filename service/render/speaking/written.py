"""The model-written parts of a digest, worded for one target.

Which parts a model wrote is decided once, in core (`sections.written`); here its checked
sentences are escaped like any untrusted text (they passed the checker, and are still escaped
for every target), and the note is worded that says which parts a model wrote, names the model
and says that every sentence was checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from service.core.models import AnalysisItem
from service.render.speaking.voice import Voice

if TYPE_CHECKING:  # the analyst's checks load when a digest holds a model's analysis
    from service.core.analyst.sections import Written


class WrittenWords(Voice):
    """The notes, footer and chat lines about what a language model wrote."""

    def section_names(self, view: Written) -> str:
        """The model-written sections, named in the language (`a、b与c`, `a, b and c`)."""
        names = [self.tr.t(f"analysis.section.{s}") for s in view.sections]
        if len(names) <= 1:
            return "".join(names)
        head = self.tr.t("analysis.list_sep").join(names[:-1])
        return self.tr.t("analysis.and_list", head=head, last=names[-1])

    def _about(self, view: Written, key: str) -> str:
        key = key if view.dropped else f"{key}_clean"
        model = self.target.text(view.model)
        return self.tr.t(key, sections=self.section_names(view), model=model, count=view.dropped)

    def model_note(self) -> str:
        """Which parts a model wrote, its name, that each sentence was checked and how many
        were dropped ('' if it wrote none)."""
        return self._about(self.written, "analysis.note") if self.written else ""

    def card_note(self) -> str:
        """The one-line note of a chat card: the model's name and how many sentences were
        dropped ('' if it wrote none)."""
        return self._about(self.written, "analysis.card_note") if self.written else ""

    def footer(self) -> str:
        """The report's last line: that rules made it, and which parts a model wrote if any."""
        tool = self.code("verl-week")
        if self.written is None:
            return self.tr.t("report.footer", tool=tool)
        model = self.target.text(self.written.model)
        sections = self.section_names(self.written)
        return self.tr.t("analysis.footer", tool=tool, sections=sections, model=model)

    def card_context(self) -> dict[str, Any]:
        """The model-written parts of a weekly card: `model` (core's Written or None),
        `model_item(item)` (a checked sentence in the card's markup, its PRs linked) and
        `model_note` (the line naming the model; '' when it wrote nothing). A PR's checked
        要点 comes through `point`."""
        return {"model": self.written, "model_item": self.item, "model_note": self.card_note()}

    def item_line(self, item: AnalysisItem, skip: tuple[int, ...] = ()) -> str:
        """A checked sentence for a chat answer: escaped, followed by the PRs it rests on that
        it does not name (`#1, #2`), after its theme if any."""
        del skip  # a sentence names the PRs it is about; none are appended
        text = self.target.escape(item.text)
        if item.theme:
            text = self.tr.t("analysis.theme", theme=self.target.escape(item.theme), text=text)
        return text

    def point_line(self, item: AnalysisItem | None, model: str, number: int | None) -> str:
        """`pr N`: the model's checked 要点 of PR `number`, saying who wrote it ('' when none)."""
        if item is None or number is None:
            return ""
        text = self.item_line(item, skip=(number,))
        return self.tr.t("analysis.point", model=self.target.escape(model), text=text)
