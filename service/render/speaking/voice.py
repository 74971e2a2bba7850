"""The core of a Speaker: catalog sentences filled with safe values for one target and
language — PR links, people, code, a PR's point, statements and the model's checked items."""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from service.core.gists import adds_to_title, shorten, title_point
from service.core.mentions import leaf_risks
from service.core.models import AnalysisItem, Digest, KeyChangeGroup, Risk, Statement
from service.core.names_list import split_names
from service.core.scope import KEY_STRIDE, pr_key, split_key
from service.render import escape
from service.render.speaking.naming import family_repos, pr_ref_text
from service.render.speaking.params import (
    CODE_PARAMS,
    PEOPLE_PARAM,
    POINT_PARAM,
    PR_NUMBER,
    TOTAL_SUFFIX,
    TYPE_PARAM,
    ParamValue,
    Strict,
    is_int,
    is_pr_value,
    plain_number,
    plain_param,
    prs_in,
    repo_web_url,
    same_person,
)
from service.render.speaking.targets import Target
from service.render.strings import Translator

if TYPE_CHECKING:
    from service.core.analyst.sections import Written

# `#123` in escaped text, not inside a word, URL fragment, entity (`&#39;`) or escape (`\#`).
_PR_REF = re.compile(r"(?<![\w&;#\\/\[])#(\d{1,7})\b")
# the same in a family digest, whose PRs of other repositories have 8-digit keys (core/scope.py)
_FAMILY_PR_REF = re.compile(r"(?<![\w&;#\\/\[])#(\d{1,8})\b")
_BACKTICK_SPAN = re.compile(r"`([^`\n]+)`")
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")
# `Speaker.point(beside=…)`: a table row, where the title stands in the next column.
BESIDE_TABLE = "table"
# a statement parameter holding the PR's file count: its sentence states the size
SIZE_PARAM = "files"
# the "changes N files, mostly in F" fact, and its form beside a stated file count
FILES_FACT = "narrative.point.files"
FILES_SIZED = "narrative.point.files_sized"
# a fact that tells why (core/points.py)
REASON_KEYS = ("narrative.point.reason.", "narrative.point.reason_issue.")


class Voice:
    """Turns catalog keys and values into safe text for one target and language. Without a
    digest it words answers only (no PR of a week to link or to tell the point of)."""

    def __init__(self, digest: Digest | None, tr: Translator, target: Target) -> None:
        self.tr = tr
        self.target = target
        self.sep = tr.t("report.list_sep")
        self.sentence_sep = tr.t("report.sentence_sep")
        self._digest = digest
        prs = digest.prs if digest else []
        self._urls = {p.number: p.url for p in prs}
        self._web = repo_web_url(digest) if digest else ""
        # a family's repositories: a PR of another than the first is written `verl-omni#25`
        self._repos = digest.repo_names if digest else []
        self._people = {c.login: c for c in digest.trends.contributors} if digest else {}
        self._risks: dict[int, list[Risk]] = {}
        for risk in leaf_risks(digest.risks) if digest else []:
            for number in dict.fromkeys(risk.prs):
                self._risks.setdefault(number, []).append(risk)
        # the model-written parts (None: every section is the deterministic one)
        self.written: Written | None = _written(digest, tr.lang) if digest else None

    @property
    def digest(self) -> Digest:
        """The digest this Speaker words (a Speaker of answers has none)."""
        if self._digest is None:
            raise ValueError("this Speaker words answers only: it was given no digest")
        return self._digest

    # --- PRs, people, code ---------------------------------------------------------------

    def pr_url(self, number: int) -> str:
        """The PR's own URL when it is a safe http(s) URL, else <repo web URL>/pull/<n> on the
        host the digest's PR URLs come from, else '' (no link)."""
        web, own = self._web, number
        if self._repos:  # a family's PR: on its own repository's page
            index, own = split_key(number)
            if web and 0 < index < len(self._repos):
                web = web.removesuffix(self._repos[0]) + self._repos[index]
        fallback = f"{web}/pull/{own}" if web else ""
        return escape.safe_url(self._urls.get(number, ""), fallback)

    def ref(self, number: int) -> str:
        """How the PR is named: `#6200`, or `verl-omni#25` in a family digest."""
        return pr_ref_text(number, self._repos)

    def pr_link(self, number: int) -> str:
        url = self.pr_url(number)
        label = self.ref(number)
        return self.target.link(url, label) if url else label

    def pr_links(self, numbers: Sequence[int]) -> str:
        return self.sep.join(self.pr_link(n) for n in numbers)

    def pr_list(self, numbers: Sequence[int], total: int | None = None) -> str:
        """Links; when the list stands for more PRs than it names, says how many in all."""
        if total is None or total <= len(numbers):
            return self.pr_links(numbers)
        if not numbers:
            return self.tr.t("report.prs_unnamed", count=total)
        more = total - len(numbers)
        return self.tr.t("report.prs_more", prs=self.pr_links(numbers), count=total, more=more)

    def text(self, value: str, of: int = 0, inner: bool = False) -> str:
        """Untrusted text, escaped for the target; `#N` references become PR links. `of`: the
        PR whose own text this is (its title, body or diff): a bare `#N` in a PR of a family's
        other repository is that repository's PR N, as GitHub reads it there. `inner`: the text
        follows other text on its line."""
        refs = _FAMILY_PR_REF if self._repos or family_repos() else _PR_REF
        index = split_key(of)[0]

        def link(match: re.Match[str]) -> str:
            number = int(match.group(1))
            return self.pr_link(pr_key(index, number) if number < KEY_STRIDE else number)

        escaped = (self.target.inner or self.target.text) if inner else self.target.text
        return refs.sub(link, escaped(value))

    def code(self, value: str) -> str:
        return self.target.code(value)

    def person(self, login: str, *, prs: bool = False) -> str:
        """`@login`, with the display name when it says more than the login (and the PR count)."""
        contributor = self._people.get(login)
        shown = self.text(f"@{login}" if _LOGIN.fullmatch(login) else login)
        name = contributor.name if contributor else None
        named = not same_person(login, name)
        params = {"login": shown, "name": self.text(name or "")}
        if prs and contributor is not None:
            key = "report.person_named_prs" if named else "report.person_prs"
            return self.tr.t(key, count=len(contributor.prs), **params)
        return self.tr.t("report.person_named", **params) if named else shown

    def and_join(self, items: Sequence[str]) -> str:
        """`a、b与c` / `a, b and c`."""
        if len(items) <= 1:
            return "".join(items)
        return self.tr.t("report.and_list", head=self.sep.join(items[:-1]), last=items[-1])

    def label(self, group: str, name: str) -> str:
        """`report.<group>.<name>` (a category, type or source name), else the name itself."""
        key = f"report.{group}.{name}"
        return self.tr.t(key) if self.tr.has(key) else self.text(name)

    def change_type(self, name: str) -> str:
        return self.label("type", name)

    def point(
        self,
        number: int,
        *,
        quoted: bool = True,
        limit: int | None = None,
        model: bool = True,
        beside: str = "",
        sized: bool = False,
    ) -> str:
        """What the PR does: the model's checked 要点 when it wrote one (unless `model` is
        False; a checked sentence is shown whole), else its gist (PR text, quoted in the
        catalog's marks; cut at a sentence or clause boundary to `limit`), else its title's
        description (what it says it does), and only then what its files show. Shown beside
        its title, the title is not said again: `beside="title"` (a card line) says what the
        files show; `beside="table"` (a table row) only when that adds to the title; else a
        dash. In every language the point is told from the PR's facts when it has them (never
        body text); `sized`: the sentence states the PR's file count, so the point does not."""
        checked = self.written.point(number) if model and self.written else None
        if checked is not None:
            return self.item(checked, skip=(number,))
        pr = self.digest.pr(number)
        if pr is None:
            return self.tr.t("report.no_point")
        if pr.facts:
            facts = [sized_fact(f) for f in pr.facts] if sized else pr.facts
            if beside:  # the title stands beside: the facts alone
                return self.facts(facts, titled=True)
            return self.facts(facts, title=title_point(pr.title), of=number)
        said = pr.gist or ("" if beside else title_point(pr.title))
        if said:
            text = self.text(shorten(said, limit) if limit else said, of=number)
            return self.tr.t("report.quote", text=text) if quoted else text
        if pr.files_gist is not None and (beside != BESIDE_TABLE or adds_to_title(pr)):
            return self.fill(pr.files_gist.key, pr.files_gist.params)
        return self.tr.t("report.no_point")

    def facts(
        self, facts: Sequence[Statement], title: str = "", *, titled: bool = False, of: int = 0
    ) -> str:
        """A PR's point told from its facts, in the language (no body text), after its
        title's own words when it stands without the title (`titled`: the title stands
        beside it, and says the kind of change and its modules)."""
        titled = titled or bool(title)
        # the kind of change and its modules repeat the title's `[modules] type:` prefix; then
        # the first of what it adds, removes or re-defaults, and the reason it states
        head = [] if titled and len(facts) > 1 else list(facts[:1])
        whats = [f for f in facts[1:] if not f.key.startswith(REASON_KEYS)][:1]
        reasons = [self.fill(f.key, f.params) for f in facts[1:] if f.key.startswith(REASON_KEYS)]
        sep = self.tr.t("report.facts_sep")
        told = sep.join(self.fill(f.key, f.params) for f in (*head, *whats))
        if reasons:  # a reason goes on the fact it explains ("changes X to use less memory")
            said = sep.join(reasons)
            told = self.tr.t("report.reason_sep").join([told, said]) if told else said
        if title:  # the facts go on the title's sentence ("“title”, new feature in …")
            if head:
                told = told[:1].lower() + told[1:]
            return self.tr.t("report.point_titled", title=self.text(title, of=of), facts=told)
        told = told[:1].upper() + told[1:]  # a fact after the dropped kind starts the sentence
        return told + self.tr.t("report.facts_end")

    # --- filling a sentence ----------------------------------------------------------------

    def _code_param(self, value: ParamValue) -> str:
        # Rules keep a list of names as one ", "-joined string; each name is its own code span.
        items = value if isinstance(value, list) else split_names(str(value))
        return self.sep.join(self.code(str(v)) for v in items)

    def _pr_param(self, value: ParamValue, total: Any) -> str:
        """A PR number, a list of them (with how many there are in all) or a text naming them."""
        if isinstance(value, str):
            return self.pr_links([int(n) for n in PR_NUMBER.findall(value)])
        if isinstance(value, list):
            return self.pr_list([int(v) for v in value], total if is_int(total) else None)
        return self.pr_link(int(value))

    def _param(self, name: str, value: ParamValue, raw: dict[str, Any]) -> Any:
        if name == POINT_PARAM and isinstance(value, int):  # a rule's sentence: the rule's point
            # a key-change line states the file count (`files`): its point need not
            return self.point(value, model=False, sized=SIZE_PARAM in raw)
        if name == PEOPLE_PARAM and isinstance(value, list):
            return self.sep.join(self.person(str(v), prs=True) for v in value)
        if is_pr_value(name, value):
            return self._pr_param(value, raw.get(name + TOTAL_SUFFIX))
        if name in CODE_PARAMS and value not in ("", []):
            return self._code_param(value)
        if name == TYPE_PARAM and isinstance(value, str):
            return self.change_type(value)
        if isinstance(value, list):
            return self.sep.join(self.text(str(v)) for v in value)
        if isinstance(value, bool):
            return str(value)
        if isinstance(value, int | float):
            return plain_number(value)
        return self.text(value)

    def params(self, raw: dict[str, Any]) -> dict[str, Any]:
        return {name: self._param(name, value, raw) for name, value in raw.items()}

    def _resolve(self, key: str, params: dict[str, Any]) -> str:
        if params.get("count") == 1 and self.tr.has(f"{key}_one"):
            return f"{key}_one"
        return key

    def fill(self, key: str, raw: dict[str, Any]) -> str:
        """The sentence for `key` (or its `_one` variant) with every parameter made safe.

        A PR number becomes a `#N` link; a catalog that writes `#{number}` keeps one `#`.
        """
        key = self._resolve(key, raw)
        template = self.tr.catalog.get(key)
        if template is None:
            return self.tr.t(key)  # raises the missing-key error with the language
        params = self.params(raw)
        for name, value in raw.items():
            if is_pr_value(name, value):
                template = template.replace(f"#{{{name}}}", f"{{{name}}}")
        return self.target.catalog(template).format_map(Strict(params))

    def plain(self, key: str, raw: dict[str, Any], **said: str) -> str:
        """A chat sentence (an answer, a card line): every value escaped, nothing linked, a
        list of PRs as `#1, #2`, a change type by its name; `said`: parameters already worded
        (a nested sentence)."""
        safe = {name: plain_param(value, self.target.escape) for name, value in raw.items()}
        kind = raw.get(TYPE_PARAM)
        if isinstance(kind, str) and self.tr.has(f"report.type.{kind}"):
            safe[TYPE_PARAM] = self.tr.t(f"report.type.{kind}")
        family = {
            name: value
            for name, value in raw.items()
            if isinstance(value, int) and is_pr_value(name, value) and split_key(value)[0]
        }
        if family:  # `PR #{pr}` of a family's other repository: `PR verl-omni#25`
            return self._plain_refs(key, {**safe, **said}, family)
        return self.tr.t(key, **safe, **said)

    def _plain_refs(self, key: str, safe: dict[str, Any], family: dict[str, int]) -> str:
        key = self._resolve(key, safe)
        template = self.tr.catalog.get(key)
        if template is None:
            return self.tr.t(key)
        for name, value in family.items():
            template = template.replace(f"#{{{name}}}", f"{{{name}}}")
            safe[name] = self.ref(value)
        return template.format_map(Strict(safe))

    def say(self, statement: Statement) -> str:
        """The statement's sentence; its PRs not already named in the sentence follow as links."""
        sentence = self.fill(statement.key, statement.params)
        template = self.tr.catalog[self._resolve(statement.key, statement.params)]
        used = {f for _, f, _, _ in string.Formatter().parse(template) if f}
        named = prs_in(statement.params, used)
        rest = [n for n in statement.prs if n not in named]
        if not rest:
            return sentence
        return self.tr.t("report.with_prs", sentence=sentence, prs=self.pr_links(rest))

    def story_line(self, group: KeyChangeGroup) -> str:
        """A key change: the story's lead PR, then each tie (`；…`), then the closing stop."""
        if not group.items:
            return ""
        clauses = "".join(
            self.tr.t("report.key_changes.clause", text=self.say(i)) for i in group.items[1:]
        )
        return self.say(group.items[0]) + clauses + self.tr.t("report.key_changes.end")

    # --- the model's checked sentences -------------------------------------------------------

    def prose(self, value: str) -> str:
        """A model's checked sentence: escaped, `#N` linked, `code` spans shown as code."""
        parts = _BACKTICK_SPAN.split(value)
        return "".join(self.code(p) if i % 2 else self._spaced(p, i) for i, p in enumerate(parts))

    def _spaced(self, piece: str, at: int) -> str:
        """`text` of a piece between code spans, keeping the spaces that separate them (a
        piece after a code span does not start a line)."""
        stripped = piece.strip()
        if not stripped:
            return " " if piece else ""
        lead = " " if piece[0].isspace() else ""
        tail = " " if piece[-1].isspace() else ""
        return lead + self.text(stripped, inner=at > 0) + tail

    def item(self, item: AnalysisItem, skip: tuple[int, ...] = ()) -> str:
        """A checked item as written: it names the PRs it is about, and no list of the PRs it
        rests on is appended (a list would say each of them is what the sentence says).
        `skip` is kept for callers that stand it beside a PR."""
        del skip
        return self.prose(item.text)


def sized_fact(fact: Statement) -> Statement:
    """A point's fact beside a sentence that states the file count: "mostly in F", not
    "changes 3 files, mostly in F (3 files, …)"."""
    if fact.key != FILES_FACT:
        return fact
    return fact.model_copy(update={"key": FILES_SIZED})


def _written(digest: Digest, lang: str) -> Written | None:
    """What the model wrote for the digest in `lang` (sections.written); a digest without a
    model's analysis in it (`--no-llm`, no model set) does not import the analyst's checks."""
    if digest.analysis_for(lang) is None:
        return None
    from service.core.analyst.sections import written

    return written(digest, lang)
