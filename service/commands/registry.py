"""Every chat verb, in the order `help` lists them: the one table the parser, the help answer,
the engine's dispatch and the CLI's `ask` read. A new verb is one line here (its module holds
the rest: commands/verbs/)."""

from __future__ import annotations

import functools
import operator
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from service.commands.grammar import CommandError
from service.commands.kinds import ANSWER_MODELS, Answer
from service.commands.verbs import (
    CardButton,
    VerbSpec,
    authors,
    month,
    pr,
    regenerate,
    risks,
    subscribe,
    subscriptions,
    summary,
    top,
    trends,
    unsubscribe,
    week,
)
from service.commands.verbs import help as help_verb

VERBS: dict[str, VerbSpec] = {}


@functools.cache
def answer_adapter() -> TypeAdapter[Answer]:
    """Reads any answer back from its JSON, as the model of its `kind`."""
    models = [*ANSWER_MODELS, *(m for s in VERBS.values() for m in s.models)]
    union: Any = functools.reduce(operator.or_, models)  # built at run time: no static type
    adapter: TypeAdapter[Answer] = TypeAdapter(Annotated[union, Field(discriminator="kind")])
    return adapter


def register(spec: VerbSpec) -> VerbSpec:
    """Add `spec` to the table (after the verbs there); its name and aliases must be new."""
    taken = {*VERBS, *(a for s in VERBS.values() for a in s.aliases)}
    clash = taken & {spec.name, *spec.aliases}
    if clash:
        raise ValueError(f"verb words taken already: {sorted(clash)}")
    VERBS[spec.name] = spec
    answer_adapter.cache_clear()
    return spec


for _spec in (
    help_verb.SPEC,
    risks.SPEC,
    pr.SPEC,
    top.SPEC,
    summary.SPEC,
    trends.SPEC,
    week.SPEC,
    month.SPEC,
    regenerate.SPEC,
    subscribe.SPEC,
    unsubscribe.SPEC,
    subscriptions.SPEC,
    authors.SPEC,
):
    register(_spec)


def verb_names() -> list[str]:
    return list(VERBS)


def card_buttons() -> list[tuple[str, CardButton]]:
    """The verbs a digest's card shows as buttons, with their button, in the table's order."""
    return [(name, spec.button) for name, spec in VERBS.items() if spec.button is not None]


def verb_spec(word: str) -> VerbSpec:
    """The verb `word` names (its name or an alias, any case); CommandError when none."""
    lowered = word.lower()
    found = VERBS.get(lowered) or next((s for s in VERBS.values() if lowered in s.aliases), None)
    if found is None:
        raise CommandError("cmd.error.unknown_command", None, word=word)
    return found


def usage_keys(verb: str | None) -> list[str]:
    """Catalog keys of the usage lines to show: one verb's, or every verb's and the filters'."""
    if verb is not None:
        return [f"cmd.usage.{verb}"]
    return [*(s.usage_key for s in VERBS.values()), "cmd.usage.filters"]
