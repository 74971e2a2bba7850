"""The model-written parts of a digest, made safe for one target.

Which parts a model wrote is decided once, in core (`sections.written`); here its checked
sentences are escaped like any untrusted text (they passed the checker, and are still escaped
for every target), and the note is worded that says which parts a model wrote, names the model
and says that every sentence was checked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service.core.analyst.claims import pr_refs
from service.core.analyst.sections import Written, written
from service.core.models import AnalysisItem
from service.render.strings import Translator

if TYPE_CHECKING:
    from service.render.speaker import Speaker

__all__ = [
    "Written",
    "card_context",
    "card_note",
    "footer",
    "item_text",
    "note",
    "point_line",
    "section_names",
    "written",
]

Escape = Callable[[str], str]


def section_names(tr: Translator, view: Written) -> str:
    """The model-written sections, named in the report's language (`a、b与c`, `a, b and c`)."""
    names = [tr.t(f"analysis.section.{s}") for s in view.sections]
    if len(names) <= 1:
        return "".join(names)
    head = tr.t("analysis.list_sep").join(names[:-1])
    return tr.t("analysis.and_list", head=head, last=names[-1])


def note(tr: Translator, view: Written, escape: Escape) -> str:
    """The report's note: which parts the model wrote, its name, that each sentence was checked
    and how many were dropped."""
    key = "analysis.note" if view.dropped else "analysis.note_clean"
    return tr.t(key, sections=section_names(tr, view), model=escape(view.model), count=view.dropped)


def card_note(tr: Translator, view: Written, escape: Escape) -> str:
    """The one-line note of a chat card: the model's name and how many sentences were dropped."""
    key = "analysis.card_note" if view.dropped else "analysis.card_note_clean"
    return tr.t(key, sections=section_names(tr, view), model=escape(view.model), count=view.dropped)


def footer(tr: Translator, view: Written, escape: Escape, tool: str) -> str:
    """The report's last line when a model wrote part of it: what rules made, what the model
    wrote and that it was checked (`tool`: the program's name, already marked up)."""
    return tr.t(
        "analysis.footer", tool=tool, sections=section_names(tr, view), model=escape(view.model)
    )


def unnamed_prs(item: AnalysisItem, skip: tuple[int, ...] = ()) -> list[int]:
    """The PRs an item rests on that its text does not name (nor `skip`: a PR's own point
    need not name the PR it stands beside)."""
    named = {*pr_refs(item.text), *skip}
    return [n for n in item.prs if n not in named]


def item_text(
    tr: Translator,
    item: AnalysisItem,
    escape: Escape,
    *,
    prs: Callable[[list[int]], str] | None = None,
    theme: Callable[[str], str] | None = None,
    skip: tuple[int, ...] = (),
) -> str:
    """A checked sentence for a chat card or plain text: escaped, followed by the PRs it rests
    on that it does not name (`prs` writes them, default `#1, #2`), after its theme if any."""
    text = escape(item.text)
    rest = unnamed_prs(item, skip)
    if rest:
        listed = prs(rest) if prs else ", ".join(f"#{n}" for n in rest)
        text = tr.t("analysis.with_prs", sentence=text, prs=listed)
    if item.theme:
        label = theme(item.theme) if theme else escape(item.theme)
        text = tr.t("analysis.theme", theme=label, text=text)
    return text


def point_line(tr: Translator, item: AnalysisItem, model: str, number: int, escape: Escape) -> str:
    """`/verl-week pr N`: the model's checked 要点 of PR `number`, saying who wrote it."""
    text = item_text(tr, item, escape, skip=(number,))
    return tr.t("analysis.point", model=escape(model), text=text)


def card_context(s: Speaker) -> dict[str, Any]:
    """The model-written parts of a weekly card: `model` (core's Written or None),
    `model_item(item)` (a checked sentence in the card's markup, its PRs linked) and
    `model_note` (the line naming the model; '' when it wrote nothing). A PR's checked 要点
    comes through the Speaker's `point`."""
    view = s.written
    note = card_note(s.tr, view, s.target.text) if view else ""
    return {"model": view, "model_item": s.item, "model_note": note}
