"""Chat verbs, one module each: the tokens it takes, the answer it gives and how it works it out.

Each module holds one `SPEC` (a VerbSpec); commands/registry.py lists them, and the parser, the
help answer, the engine's dispatch and the CLI's `ask` derive from that list. A new verb is a
module here, its line in the registry, its catalog keys (`cmd.usage.<verb>` and its sentences)
and, where a platform shows it its own way, its templates (render/answers.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel

from service.commands.context import Caller, EngineContext
from service.commands.grammar import Command
from service.commands.kinds import Answer
from service.commands.tokens import TokenReader
from service.core.models import Period


@dataclass(frozen=True)
class Request:
    """A parsed command on its way to its verb's answer: who asks, about which repository (its
    name now), in which engine; `usage` the usage keys of every verb (what `help` lists);
    `period` the command's period, resolved before the verb answers (None: it names none)."""

    command: Command
    caller: Caller
    ctx: EngineContext
    repo: str
    defer_lookup: bool = False
    usage: tuple[str, ...] = ()
    period: Period | None = None


Respond = Callable[[Request], Answer]


@dataclass(frozen=True)
class CardButton:
    """A verb shown as a button on a digest's card: its style (`default`, `danger`) and whether
    it carries a filtered card's filter; its label is the catalog's `feishu.button.<verb>`."""

    style: str = "default"
    filtered: bool = False


@dataclass(frozen=True)
class VerbSpec:
    """One chat verb. `reads`: it shows what a repository's digests hold (refused on a private
    repository to who may not read it); `admin`: admins only; `filters`: it takes `key:value`
    filters (every verb takes `lang:`); `families`: its repository may be a family's name;
    `lenient`: arguments it does not know are ignored (`help anything`)."""

    name: str
    respond: Respond
    tokens: tuple[TokenReader, ...] = ()
    aliases: tuple[str, ...] = ()
    reads: bool = False
    admin: bool = False
    filters: bool = False
    families: bool = False
    lenient: bool = False
    # a field the command cannot do without, and the catalog key that says it is missing
    required: tuple[tuple[str, str], ...] = ()
    # the period of a command that names none (`month` alone: the last complete month)
    default_period: str | None = None
    # the period a command that names none is about, when answering (regenerate: `last`);
    # None: the newest stored one
    unnamed_period: str | None = None
    # the catalog key of a token none of `tokens` takes ("" : the generic ones)
    bad_argument: str = ""
    # the answer models this verb adds to the engine's (commands/kinds.py holds the shared ones)
    models: tuple[type[BaseModel], ...] = field(default=())
    # the verb's button on a digest's card (None: it has none); commands/buttons.py its value
    button: CardButton | None = None

    @property
    def usage_key(self) -> str:
        return f"cmd.usage.{self.name}"
