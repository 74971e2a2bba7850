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
from service.core.analyst.evidence import PREvidence
from service.core.analyst.facts import PRFacts
from service.core.analyst.glossary import glossary
from service.core.analyst.grounding import found_in
from service.core.analyst.quotes import Quote, norm
from service.core.analyst.structure import ValueClaim, line_setting, value
from service.core.analyst.verify_lines import names_of

OLD_REACH = 60  # "instead of explicit adv_estimator and loss_mode": a list after the word
# the words that tell a value as the old one: "from A", "instead of A", "由 A", "不再 A"
_OLD_PLACE = re.compile(
    r"(?:\bfrom|\bwas|\bwere|\bpreviously|\bformerly|\bold|\bearlier|instead of|rather than"
    r"|out of|away from|replac\w*|no longer|retir\w*|由|从|原|旧|之前|此前|以前|不再|取代|替换|替代"
    r"|弃用|废弃)\W{0,4}(?:\w+\W{1,3}){0,3}$"
    r"|→\s*$",
    re.IGNORECASE,
)
# "`a` to `b`" tells `a` as the old name; "`a` to avoid …" is a purpose, not a change
_PURPOSE = (
    r"(?:avoid|prevent|make|keep|ensure|support|allow|enable|fix|be|get|run|use|reduce|improve"
    r"|save|handle|match|stop|work|let|speed|cut|free|guard|protect|overlap|hide)\b"
)
_ARROW_AFTER = re.compile(
    rf"^\W{{0,2}}(?:\w{{1,12}}\W{{0,2}}){{0,2}}?\s*(?:→|->|to\b(?!\s+{_PURPOSE})|改为|改成|变为|换成"
    r"|更正为|修正为|替换为|更新为)",
    re.IGNORECASE,
)
# a removal said of a name right after it, in the passive or as advice: the name is the old one
_REMOVED_AFTER = re.compile(
    r"^\S{0,30}?\W{0,3}(?:[\w-]+\W{1,3}){0,3}?"
    r"(?:(?:is|are|was|were|been|gets?|should|must|can)\s+(?:be\s+)?"
    r"(?:remov|drop|delet|deprecat|retir)\w*\b|(?:被|已被|已)\s*(?:删除|移除|去掉|废弃|弃用))"
    # "-1 默认项被删除": a Chinese noun right before the passive
    r"|^\W{0,3}[\u4e00-\u9fff]{1,6}?(?:被|已被)\s*(?:删除|移除|去掉|废弃|弃用)",
    re.IGNORECASE,
)
# a removal said earlier in the sentence, with no addition after it: what follows was removed
_REMOVAL = re.compile(
    r"\b(?:remov|drop|delet|strip|restor)\w*|删除|删去|移除|去掉|去除|恢复", re.IGNORECASE
)
_ADDITION = re.compile(
    r"\b(?:adds?|added|adding|introduc\w*|gains?|new)\b|新增|加入|引入|增加", re.IGNORECASE
)
_PATH_LIKE = re.compile(r"/|\.(?:py|ya?ml|json|toml|sh|md|txt|cfg|ini)$")
_SMALL_WORDS = frozenset({"两", "二", "三", "四", "two", "three", "four", "both"})
WORD_NUMBER_MAX = 4
# what each of the week's totals counts, in the words of a sentence
_TOTAL_WORDS = (
    ("risks", re.compile(r"\brisks?\b|风险", re.IGNORECASE)),
    ("contributors", re.compile(r"\bcontributors?\b|贡献者", re.IGNORECASE)),
    ("first_time", re.compile(r"\bfirst[- ]time\b|首次", re.IGNORECASE)),
    ("breaking", re.compile(r"\bbreaking\b|破坏", re.IGNORECASE)),
    ("changed_files", re.compile(r"\bfiles?\b|文件", re.IGNORECASE)),
)


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
        elif q.side in ("+", "-"):
            # "-docker-build-ascend-a3.yml: compress: true": the file is where the line
            # stands, on neither side; the line is on its side
            path, _, code = q.text.partition(": ")
            if code and _PATH_LIKE.search(path) and " " not in path.strip():
                said.append(norm(path))
            (new if q.side == "+" else old).append(line)
            setting = line_setting(q.text.split(": ", 1)[-1]) if q.side == "-" else None
            old_values += [setting[1]] if setting else []
        else:
            said.append(line)
    numbers = claims.numbers_in("\n".join(q.text for q in quotes if q.found))
    values = tuple(v for v in dict.fromkeys(old_values) if len(v) > 1)
    return Quoted("\n".join(new), "\n".join(old), "\n".join(said), frozenset(numbers), values)


def _own_numbers(prs: Sequence[PRFacts]) -> set[str]:
    ints = [n for pr in prs for n in (pr.additions, pr.deletions, pr.files, pr.number)]
    ints += [pr.files_removed for pr in prs]
    ints += [pr.additions + pr.deletions for pr in prs] + [len(pr.modules) for pr in prs]
    ints += [pr.approvals for pr in prs if pr.approvals is not None]
    return {str(n) for n in ints} | {f"{pr.score:g}" for pr in prs}


def _known_name(name: str, where: str) -> bool:
    lowered = norm(name).rstrip("/")
    known = bool(lowered) and (lowered in where or lowered.replace(".", "/") in where)
    return known or claims.setting_said(lowered, where)


def _names_of(prs: Sequence[PRFacts]) -> str:
    parts = [p for pr in prs for p in (pr.title, *pr.modules, *pr.paths)]
    parts += [c.key for pr in prs for c in pr.config]
    return "\n".join(norm(p) for p in [*parts, risk_names(prs)])


def risk_names(prs: Sequence[PRFacts]) -> str:
    """The kinds and rules of the risks the data shows for `prs` (`core_without_tests`,
    `dangerous_command`): names the request gives the model for them."""
    return "\n".join(n for pr in prs for r in pr.risks for n in (r.kind, r.rule) if n)


def _old_only(token: str, q: Quoted) -> bool:
    lowered = norm(token)
    if len(lowered) < 2 or not found_in(lowered, q.old):  # noqa: PLR2004
        return False
    return not found_in(lowered, q.new) and not found_in(lowered, q.said)


# "不再按 video.max() > 1.0 判断", "no longer scales by x": what follows in the clause is gone
_NO_LONGER = re.compile(r"不再|no longer", re.IGNORECASE)
_CLAUSE_CUT = re.compile(r"[，,。;；!！?？]|\.(?=\s|$)")


def _no_longer(text: str, start: int) -> bool:
    found = list(_NO_LONGER.finditer(text, 0, start))
    return bool(found) and not _CLAUSE_CUT.search(text, found[-1].end(), start)


def _told_old(text: str, start: int, end: int) -> bool:
    if _OLD_PLACE.search(text[max(0, start - OLD_REACH) : start]) or _ARROW_AFTER.match(text[end:]):
        return True
    if _no_longer(text, start):
        return True
    if _REMOVED_AFTER.match(text[end:]):
        return True  # "the `x` module name is removed", "`x` 被移除": said of the old
    removals = list(_REMOVAL.finditer(text, 0, start))
    if not removals:
        return False
    return not _ADDITION.search(text, removals[-1].end(), start)


def _places(token: str, text: str) -> list[re.Match[str]]:
    """Where `text` says `token` as a whole (`final_res.output` is not the start of
    `final_res.outputs`)."""
    before = r"(?<!\w)" if re.match(r"\w", token) else ""
    after = r"(?!\w)" if re.search(r"\w$", token) else ""
    return list(re.finditer(before + re.escape(token) + after, text, re.IGNORECASE))


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
        places = _places(token, text)
        if places and not any(_told_old(text, m.start(), m.end()) for m in places):
            reasons.append(
                f"old value {token}: the quotes show it on a removed line only, "
                "and the sentence tells it as new"
            )
    return reasons


def diff_side_reasons(text: str, cited: Sequence[PREvidence], quotes: Quoted) -> list[str]:
    """A name the sentence gives that the cited PRs' diffs hold on removed lines only (not on
    an added or unchanged line, nor in what they say or the quotes) must be told as the old
    one: a name the PR deletes is not what it now does."""
    reasons = []
    for token in dict.fromkeys(claims.identifiers(text)):
        lowered = token.lower().strip("`")
        if len(lowered) < 2 or found_in(norm(token), quotes.everything):  # noqa: PLR2004
            continue
        removed = [e for e in cited if found_in(lowered, e.removed)]
        # a name on an unchanged line (`name: gpu_smoke_verl_latest`) still stands
        kept = (f"{e.added}\n{e.text}\n{e.context}" for e in cited)
        if not removed or any(found_in(lowered, where) for where in kept):
            continue
        if any(found_in(lowered, _kept_names(e)) for e in cited):
            continue  # on an unchanged line, or the name of a file the PR only modifies
        places = _places(token, text)
        if places and not any(_told_old(text, m.start(), m.end()) for m in places):
            numbers = ", ".join(f"#{e.number}" for e in removed)
            reasons.append(
                f"old name {token}: {numbers} removes it (on removed lines only), "
                "and the sentence tells it as new"
            )
    return reasons


def _kept_names(e: PREvidence) -> str:
    """What a PR leaves in place: its patches' unchanged lines and the paths of the files it
    modifies (neither creates, deletes nor renames)."""
    changed = {path for path, _status in e.statuses}
    kept = [path for path, _old, _new in e.files if path not in changed]
    return "\n".join([e.context, *kept]).lower()


def covering_reasons(
    text: str,
    q: Quoted,
    prs: Sequence[PRFacts],
    week_words: str,
    week_ints: Sequence[int],
    data: str = "",
    said: str = "",
    cited: Sequence[PREvidence] = (),
) -> list[str]:
    """Each figure and name of the sentence is in its quotes, or one of the cited PRs' own
    figures or names (size, files, title, modules, paths, config keys), or in the rest of
    their data (names: `data`, whole body, reviews and both sides of the diff, which the
    quotes need not copy; figures: `said`, what the PRs say), or the week's."""
    reasons = []
    names_ = names_of(text)
    allowed = set(q.numbers) | _own_numbers(prs) | {str(n) for n in week_ints}
    allowed |= claims.numbers_in(said) if said else set()
    for figure in claims.figures(text):
        if _word_count(figure):
            continue  # "两个配置", "three settings": a count of what the sentence lists
        if figure.kind in ("plain", "multiplier", "percent") and not figure.values & allowed:
            stated = (e.states(figure.text, names_, text) for e in cited)
            if figure.kind == "plain" and any(stated):
                continue  # on a changed line beside what the sentence gives it to
            reasons.append(
                f"figure {figure.text}: not in the quotes, the PRs' own figures "
                "nor on a changed line beside what the sentence gives it to"
            )
    names = "\n".join([q.everything, _names_of(prs), week_words, data])
    for name in claims.identifiers(text):
        if not _known_name(name, names):
            reasons.append(f"identifier {name}: not in the quotes nor the PRs' names and paths")
    return reasons


def _word_count(figure: claims.Figure) -> bool:
    """A small count in words ("两", "three"): what the sentence lists, not a figure of data."""
    return (
        figure.kind != "multiplier"
        and not figure.text[:1].isdigit()
        and all(v.isdigit() and int(v) <= WORD_NUMBER_MAX for v in figure.values)
    )


def _figure_settled(figure: claims.Figure, q: Quoted) -> bool:
    """A figure the quotes hold: a multiplier in words ("halved", "缩短一半", "翻倍") only as a
    multiplier the quotes state (`2x`, "half"), not any 2 or 50 of them."""
    if figure.kind == "multiplier" and not any(c.isdigit() for c in figure.text):
        return bool(figure.values & claims.values_of_kind(q.everything, "multiplier"))
    return bool(figure.values & q.numbers) or _word_count(figure)


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
        if name == "enable" and found_in("true", q.everything):
            return True
        if name == "disable" and found_in("false", q.everything):
            return True
        if name in ("default", "enable", "disable", "upgrade", "downgrade") and (
            q.new.strip() or q.old.strip()
        ):
            return True
        if action.evidence.search(q.said):
            return True
    return False


def named_totals(text: str, totals: dict[str, int]) -> set[str]:
    """The week's totals a sentence may state because it names what they count."""
    out = set()
    for key, value_ in totals.items():
        if any(word.search(text) for name, word in _TOTAL_WORDS if key.startswith(name)):
            out.add(str(value_))
    return out


_OTHER_STATE = "gives the setting the other state"


def settled(
    reasons: Sequence[str], q: Quoted | None, value_claims: Sequence[ValueClaim]
) -> list[str]:
    """`reasons` without the word rules a found quote or a matched value claim decides."""
    matched = [c for c in value_claims if c.ok]
    claimed = {value(v) for c in matched for v in (c.old, c.new, c.key) if v is not None}
    out = []
    for reason in reasons:
        rule, _, detail = reason.partition(": ")
        if rule == "action":
            detail = detail.split(" (", 1)[0]  # the word, not the fact it lacks
        if rule == "default" and matched and _OTHER_STATE not in detail:
            continue  # the code's other state for an on/off is no word a value settles
        if rule == "action" and (matched or (q is not None and _action_settled(detail, q))):
            continue
        if rule in ("figure", "identifier") and value(detail) in claimed:
            continue
        if q is not None and rule == "figure":
            figures = claims.figures(detail)
            if detail.lower() in _SMALL_WORDS or (
                figures and all(_figure_settled(f, q) for f in figures)
            ):
                continue
        if q is not None and rule == "failure" and found_in(norm(detail), q.everything):
            continue  # "broken for triton>=3.3": the PR's own words, quoted
        if (
            q is not None
            and rule in ("identifier", "entity")
            and _known_name(detail.split(" (", 1)[0], q.everything)
        ):
            continue
        out.append(reason)
    return out
