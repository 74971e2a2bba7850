"""The button protocol of every platform: what a card's button carries back to the engine.

A button stands for a command: its value names the verb, the repository, the period and (for a
filtered card) the filter, as a flat dict of strings. The Slack card sends it as compact JSON
text, the Feishu card as an object; both adapters hand what comes back to `decode`, which reads
it into a Command (values written before the verb was named, with `week` for the period and
Feishu's `action` for the verb, are read too). A value that comes back is user input: an
unreadable one is no command, an unreadable filter means the whole period.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from urllib.parse import quote, unquote

from service.commands.filters import card_filter
from service.commands.grammar import Command, CommandError, normalize_week
from service.commands.periods import normalize_period
from service.commands.registry import VERBS, card_buttons
from service.commands.verbs import CardButton
from service.core.models import Period

# characters of a filter kept as they are in a value (the rest is percent-encoded)
FILTER_SAFE = " :,/*.-_"
# the keys a value written before this protocol used for the verb and the period
_OLD_VERB, _OLD_PERIOD = "action", "week"


def encode(verb: str, repo: str, period: Period, filter_text: str = "") -> dict[str, str]:
    """The value of a button that stands for `verb` on `repo`'s `period` (with a filtered card's
    filter, so its button answers about what the card shows): the period by its label, which
    `decode` gives back as the command's period (resolved by the engine, in its timezone)."""
    value = {"verb": verb, "repo": repo, "period": period.label}
    if filter_text:  # user text, percent-encoded even in a value
        value["filter"] = quote(filter_text, safe=FILTER_SAFE)
    return value


def encode_text(verb: str, repo: str, period: Period, filter_text: str = "") -> str:
    """`encode` as the JSON text a Slack button's `value` is (no `&`, `<` or `>` in it: Slack's
    control characters)."""
    return as_text(encode(verb, repo, period, filter_text))


def as_text(value: Mapping[str, str]) -> str:
    """A value as the JSON text a Slack button sends (Slack's control characters escaped)."""
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def card_values(
    repo: str, period: Period, filter_text: str = ""
) -> list[tuple[str, CardButton, dict[str, str]]]:
    """Every verb a digest's card shows as a button (the registry's order), its button and the
    value it sends back; a filtered button carries the card's `filter_text`. Each platform's
    renderer shapes them its own way (Slack: action_id, style, JSON text; Feishu: an object)."""
    return [
        (verb, button, encode(verb, repo, period, filter_text if button.filtered else ""))
        for verb, button in card_buttons()
    ]


def decode(value: object, verb: str | None = None) -> Command | None:
    """The Command a button's value stands for (JSON text or an object); `verb` is the one the
    platform knows the button by, for a value that names none. None: no command of ours."""
    fields = _fields(value)
    named = fields.get("verb") or fields.get(_OLD_VERB) or verb
    if not isinstance(named, str) or named not in VERBS:
        return None
    label = fields.get("period") or fields.get(_OLD_PERIOD)
    period = label if isinstance(label, str) and label else None
    repo = fields.get("repo")
    carried = fields.get("filter")
    try:
        read = (normalize_week(period) or normalize_period(period)) if period else None
    except CommandError:  # a label of no calendar: not a value we wrote
        return None
    return Command(
        verb=named,
        period=read,
        repo=repo if isinstance(repo, str) and repo else None,
        filter=card_filter(unquote(carried) if isinstance(carried, str) else None),
    )


def _fields(value: object) -> Mapping[str, object]:
    if isinstance(value, str):
        try:
            value = json.loads(value or "{}")
        except ValueError:
            return {}
    return value if isinstance(value, Mapping) else {}
