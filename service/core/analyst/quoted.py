"""What a sentence's evidence decides: every figure, name and value it states is in its quotes
(or in the PRs' own figures and names), on the right side (a value only on a removed line is
told as the old value); and the word rules a quote or a structural fact settles are lifted.

`covering_reasons` are the claims the quotes do not cover; `settled` filters the word rules'
reasons (figure, identifier, entity, action, default) that a found quote or a matched value
claim decides.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from service.core.analyst import claims
from service.core.analyst.facts import PRFacts
from service.core.analyst.glossary import glossary
from service.core.analyst.grounding import found_in
from service.core.analyst.quotes import Quote, norm
from service.core.analyst.structure import ValueClaim, line_setting, value

OLD_REACH = 30
# the words that tell a value as the old one: "from A", "instead of A", "由 A", "不再 A"
_OLD_PLACE = re.compile(
    r"(?:\bfrom|\bwas|\bwere|\bpreviously|\bformerly|\bold|\bearlier|instead of|rather than"
    r"|replac\w*|no longer|remov\w*|drop\w*|delet\w*|retir\w*|由|从|原|旧|之前|此前|以前|删除|删去"
    r"|移除|去掉|去除|不再|取代|替换|替代|弃用|废弃)\W{0,4}(?:\w+\W{1,3}){0,3}$"
    r"|→\s*$",
    re.IGNORECASE,
)
_ARROW_AFTER = re.compile(r"^\W{0,2}\s*(?:→|->|to\b|改为|改成|变为|换成)", re.IGNORECASE)


@dataclass(frozen=True)
class Quoted:
    """The found quotes of a sentence, by side, normalised."""

    new: str  # added lines and new values of config changes
    old: str  # removed lines and old values
    said: str  # what the PRs say, config keys, paths
    numbers: frozenset[str]
    old_values: tuple[str, ...] = ()  # the values removed lines and config changes had

    @property
    def everything(self) -> str:
        return f"{self.new}\n{self.old}\n{self.said}"


def quoted(quotes: Sequence[Quote]) -> Quoted:
    new, old, said, old_values = [], [], [], []
    for q in (q for q in quotes if q.found):
        line = norm(q.text)
        if q.change is not None:
            said.append(norm(f"{q.change.path} {q.change.key}"))
            new.append(norm(q.change.new or ""))
            old.append(norm(q.change.old or ""))
            old_values.append(value(q.change.old or ""))
        elif q.side == "+":
            new.append(line)
        elif q.side == "-":
            old.append(line)
            setting = line_setting(q.text.split(": ", 1)[-1])
            old_values += [setting[1]] if setting else []
        else:
            said.append(line)
    numbers = claims.numbers_in("\n".join(q.text for q in quotes if q.found))
    values = tuple(v for v in dict.fromkeys(old_values) if len(v) > 1)
    return Quoted("\n".join(new), "\n".join(old), "\n".join(said), frozenset(numbers), values)


def _own_numbers(prs: Sequence[PRFacts]) -> set[str]:
    ints = [n for pr in prs for n in (pr.additions, pr.deletions, pr.files, pr.number)]
    ints += [pr.additions + pr.deletions for pr in prs] + [len(pr.modules) for pr in prs]
    ints += [pr.approvals for pr in prs if pr.approvals is not None]
    return {str(n) for n in ints} | {f"{pr.score:g}" for pr in prs}


def _known_name(name: str, where: str) -> bool:
    lowered = norm(name).rstrip("/")
    return bool(lowered) and (lowered in where or lowered.replace(".", "/") in where)


def _names_of(prs: Sequence[PRFacts]) -> str:
    parts = [p for pr in prs for p in (pr.title, *pr.modules, *pr.paths)]
    parts += [c.key for pr in prs for c in pr.config]
    return "\n".join(norm(p) for p in parts)


def _old_only(token: str, q: Quoted) -> bool:
    lowered = norm(token)
    if len(lowered) < 2 or not found_in(lowered, q.old):  # noqa: PLR2004
        return False
    return not found_in(lowered, q.new) and not found_in(lowered, q.said)


def _told_old(text: str, start: int, end: int) -> bool:
    return bool(_OLD_PLACE.search(text[max(0, start - OLD_REACH) : start])) or bool(
        _ARROW_AFTER.match(text[end:])
    )


def side_reasons(text: str, q: Quoted, value_claims: Sequence[ValueClaim]) -> list[str]:
    """A name or value found only on removed lines of the quotes must be told as the old one."""
    told_old = {value(c.old) for c in value_claims if c.old is not None}
    reasons = []
    tokens = [*claims.identifiers(text)]
    tokens += [f.text for f in claims.figures(text) if f.kind == "plain"]
    lowered = text.lower()
    tokens += [v for v in q.old_values if found_in(v, lowered)]
    for token in dict.fromkeys(tokens):
        if value(token) in told_old or not _old_only(token, q):
            continue
        places = list(re.finditer(re.escape(token), text, re.IGNORECASE))
        if places and not any(_told_old(text, m.start(), m.end()) for m in places):
            reasons.append(
                f"old value {token}: the quotes show it on a removed line only, "
                "and the sentence tells it as new"
            )
    return reasons


def covering_reasons(
    text: str, q: Quoted, prs: Sequence[PRFacts], week_words: str, week_ints: Sequence[int]
) -> list[str]:
    """Each figure and name of the sentence is in its quotes, or one of the cited PRs' own
    figures or names (size, files, title, modules, paths, config keys), or the week's."""
    reasons = []
    allowed = set(q.numbers) | _own_numbers(prs) | {str(n) for n in week_ints}
    for figure in claims.figures(text):
        if figure.kind in ("plain", "multiplier", "percent") and not figure.values & allowed:
            reasons.append(f"figure {figure.text}: not in the quotes nor the PRs' own figures")
    names = "\n".join([q.everything, _names_of(prs), week_words])
    for name in claims.identifiers(text):
        if not _known_name(name, names):
            reasons.append(f"identifier {name}: not in the quotes nor the PRs' names and paths")
    return reasons


def _action_settled(word: str, q: Quoted) -> bool:
    """An action word the quotes back: an added line for "adds", a removed one for "removes",
    or the PR's words naming the action."""
    words = glossary()
    for name, action in words.actions.items():
        if not action.pattern.fullmatch(word):
            continue
        if name == "add" and q.new.strip():
            return True
        if name == "remove" and q.old.strip():
            return True
        if name in ("rename", "move") and q.new.strip() and q.old.strip():
            return True  # "moves the default from A to B": the quotes show both sides
        if name in ("default", "enable", "disable", "upgrade", "downgrade") and (
            q.new.strip() or q.old.strip()
        ):
            return True
        if action.evidence.search(q.said):
            return True
    return False


def settled(
    reasons: Sequence[str], q: Quoted | None, value_claims: Sequence[ValueClaim]
) -> list[str]:
    """`reasons` without the word rules a found quote or a matched value claim decides."""
    matched = [c for c in value_claims if c.ok]
    claimed = {value(v) for c in matched for v in (c.old, c.new, c.key) if v is not None}
    out = []
    for reason in reasons:
        rule, _, detail = reason.partition(": ")
        if rule == "default" and matched:
            continue
        if rule == "action" and (matched or (q is not None and _action_settled(detail, q))):
            continue
        if rule in ("figure", "identifier") and value(detail) in claimed:
            continue
        if q is not None and rule == "figure":
            values = (
                claims.normalised(detail.rstrip("%％xX×倍 ")) if detail[:1].isdigit() else set()
            )
            if values and values & q.numbers:
                continue
        if (
            q is not None
            and rule in ("identifier", "entity")
            and _known_name(detail.split(" (", 1)[0], q.everything)
        ):
            continue
        out.append(reason)
    return out
