"""How digest values become safe text for one target (Markdown, HTML, Slack mrkdwn, Feishu card
markdown) and language: catalog statements with their PR links, points, people and code, risk
wording and evidence, score factors. Every renderer speaks through a Speaker."""

from __future__ import annotations

import html
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from service.core.gists import adds_to_title, shorten, title_point
from service.core.mentions import RiskGroup, is_pr_param, leaf_risks, risk_groups
from service.core.models import (
    AnalysisItem,
    Digest,
    Evidence,
    Factor,
    KeyChangeGroup,
    Risk,
    ScoredPR,
    Statement,
)
from service.core.risks import message_keys
from service.render import analysis, escape
from service.render.environment import signed
from service.render.strings import Translator

# A plain-text PR list as older digests wrote it: `#6200, #6162` or `#1, #2, …(+3)`.
_PR_LIST_TEXT = re.compile(r"#\d+(?:\s*[,、]\s*#\d+)*(?:\s*[,、]\s*…\s*\(\+\d+\))?")
_PR_NUMBER = re.compile(r"#(\d+)")
_TRUNCATED = "…"
# `#123` in escaped text, not inside a word, URL fragment, entity (`&#39;`) or escape (`\#`).
_PR_REF = re.compile(r"(?<![\w&;#\\/\[])#(\d{1,7})\b")
_BACKTICK_SPAN = re.compile(r"`([^`\n]+)`")
_CATALOG_CODE = re.compile(r"`([^`]+)`")
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")
_NAME_KEY = re.compile(r"[\W_]+")
# the stop that ends a sentence: a list of PRs goes before it
_FINAL_STOP = re.compile(r"[。．.!?！？]+$")
# Parameters that name identifiers (paths, modules, symbols, commands): shown as code.
CODE_PARAMS = frozenset(
    {"path", "paths", "top_path", "folder", "module", "modules", "names", "targets", "command"}
)
# `Speaker.point(beside=…)`: a table row, where the title stands in the next column.
BESIDE_TABLE = "table"
# A statement parameter holding a PR number whose point (gist or files) the sentence shows.
POINT_PARAM = "point"
# A statement parameter holding logins, shown as people with their names and PR counts.
PEOPLE_PARAM = "logins"
TOTAL_SUFFIX = "_total"
# A parameter holding a change type (`feat`), shown by its name in the language (report.type).
TYPE_PARAM = "type"
# Evidence snippets in the short report are cut to this many characters.
SNIPPET_CHARS = 80

ParamValue = str | int | float | list[int] | list[str]


def _as_written(sentence: str) -> str:
    return sentence


@dataclass(frozen=True)
class Target:
    """How one output format writes untrusted text, links and code, and how it shows the
    `code` spans a catalog sentence writes in Markdown."""

    text: Callable[[str], str]
    link: Callable[[str, str], str]
    code: Callable[[str], str]
    catalog: Callable[[str], str] = _as_written


def _md_link(url: str, label: str) -> str:
    return f"[{label}]({escape.md_url(url)})"


def _html_link(url: str, label: str) -> str:
    return f'<a href="{escape.html_text(url)}">{label}</a>'


def _html_code(value: str) -> str:
    """<code>, with a line-break opportunity after each `/` so a long path wraps at its folders
    (and never inside a name)."""
    return "<code>" + escape.html_text(value).replace("/", "/<wbr>") + "</code>"


def _html_inline(value: str) -> str:
    """Escaped text in which `code` spans of the PR body are shown as <code> (content escaped)."""
    return _BACKTICK_SPAN.sub(
        lambda m: "<code>" + m.group(1).replace("/", "/<wbr>") + "</code>", escape.html_text(value)
    )


def _md_inline(value: str) -> str:
    """Escaped Markdown in which `code` spans of the PR text stay code (content made literal)."""
    line = escape.one_line(value)
    out: list[str] = []
    last = 0
    for match in _BACKTICK_SPAN.finditer(line):
        out += [_md_part(line[last : match.start()]), escape.md_code(match.group(1))]
        last = match.end()
    out.append(_md_part(line[last:]))
    return "".join(out)


def _md_part(text: str) -> str:
    """md_text of a piece between code spans, keeping the spaces at its edges."""
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() and text.strip() else ""
    return lead + escape.md_text(text) + trail


def _html_catalog(sentence: str) -> str:
    """A catalog sentence's `code` spans as <code> (catalog text is trusted; the placeholders
    inside are filled with escaped values afterwards)."""
    return _CATALOG_CODE.sub(
        lambda m: "<code>" + html.escape(m.group(1), quote=False) + "</code>", sentence
    )


MARKDOWN = Target(text=_md_inline, link=_md_link, code=escape.md_code)
HTML = Target(text=_html_inline, link=_html_link, code=_html_code, catalog=_html_catalog)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_pr_list(value: object) -> bool:
    if isinstance(value, str):
        return bool(_PR_LIST_TEXT.fullmatch(value.strip()))
    return isinstance(value, list) and all(_is_int(v) for v in value)


def _is_pr_value(name: str, value: object) -> bool:
    """Whether a parameter names PRs (and so renders as `#N` links)."""
    if name.endswith(TOTAL_SUFFIX) or name == POINT_PARAM:
        return False
    return (_is_int(value) and is_pr_param(name)) or _is_pr_list(value)


def _plain_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(value, 2)


def same_person(login: str, name: str | None) -> bool:
    """Whether a display name only respells the login (`Chi-Zhang` / `Chi Zhang`)."""
    if not name:
        return True
    return _NAME_KEY.sub("", login).lower() == _NAME_KEY.sub("", name).lower()


def repo_web_url(digest: Digest) -> str:
    """The repository's web page on its own GitHub host (github.com or an Enterprise one), as
    the API's PR URLs give it: `https://HOST/<repo>`; '' when no PR URL says."""
    suffix = re.compile(rf"^(https?://[^\s/]+(?:/[^\s]*)?/{re.escape(digest.repo)})/pull/\d+$")
    for pr in digest.prs:
        match = suffix.match(escape.safe_url(pr.url))
        if match:
            return match.group(1)
    return ""


class Speaker:
    """Turns catalog keys and digest values into safe text for one target and language."""

    def __init__(self, digest: Digest, tr: Translator, target: Target) -> None:
        self.digest = digest
        self.tr = tr
        self.target = target
        self.sep = tr.t("report.list_sep")
        self.sentence_sep = tr.t("report.sentence_sep")
        self._urls = {p.number: p.url for p in digest.prs}
        self._people = {c.login: c for c in digest.trends.contributors}
        self._risks: dict[int, list[Risk]] = {}
        for risk in leaf_risks(digest.risks):
            for number in dict.fromkeys(risk.prs):
                self._risks.setdefault(number, []).append(risk)
        # the model-written parts (None: every section is the deterministic one)
        self.written = analysis.written(digest, tr.lang)

    def pr_url(self, number: int) -> str:
        """The PR's own URL when it is a safe http(s) URL, else <repo web URL>/pull/<n> on the
        host the digest's PR URLs come from, else '' (no link)."""
        web = repo_web_url(self.digest)
        return escape.safe_url(self._urls.get(number, ""), f"{web}/pull/{number}" if web else "")

    def pr_risks(self, number: int) -> str:
        """The titles of the risks that name PR `number` (each kind once), or ''."""
        titles = dict.fromkeys(self.risk_text(r, "title") for r in self._risks.get(number, []))
        if not titles:
            return ""
        return self.tr.t("report.top.risks", titles=self.sep.join(titles))

    def pr_link(self, number: int) -> str:
        url = self.pr_url(number)
        return self.target.link(url, f"#{number}") if url else f"#{number}"

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

    def text(self, value: str) -> str:
        """Untrusted text, escaped for the target; `#N` references become PR links."""
        return _PR_REF.sub(lambda m: self.pr_link(int(m.group(1))), self.target.text(value))

    def point(
        self,
        number: int,
        *,
        quoted: bool = True,
        limit: int | None = None,
        model: bool = True,
        beside: str = "",
    ) -> str:
        """What the PR does: the model's checked 要点 when it wrote one (unless `model` is
        False; a checked sentence is shown whole), else its gist (PR text, quoted in the
        catalog's marks; cut at a sentence or clause boundary to `limit`), else its title's
        description (what it says it does), and only then what its files show. Shown beside
        its title, the title is not said again: `beside="title"` (a card line) says what the
        files show; `beside="table"` (a table row) only when that adds to the title; else a
        dash."""
        written = self.written.point(number) if model and self.written else None
        if written is not None:
            return self.item(written, skip=(number,))
        pr = self.digest.pr(number)
        if pr is None:
            return self.tr.t("report.no_point")
        said = pr.gist or ("" if beside else title_point(pr.title))
        if said:
            text = self.text(shorten(said, limit) if limit else said)
            return self.tr.t("report.quote", text=text) if quoted else text
        if pr.files_gist is not None and (beside != BESIDE_TABLE or adds_to_title(pr)):
            return self.fill(pr.files_gist.key, pr.files_gist.params)
        return self.tr.t("report.no_point")

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

    def code(self, value: str) -> str:
        return self.target.code(value)

    def _code_param(self, value: ParamValue) -> str:
        # Rules keep a list of names as one ", "-joined string; each name is its own code span.
        items = value if isinstance(value, list) else str(value).split(", ")
        return self.sep.join(self.code(str(v)) for v in items)

    def _param(self, name: str, value: ParamValue, raw: dict[str, Any]) -> Any:
        if name == POINT_PARAM and isinstance(value, int):  # a rule's sentence: the rule's point
            return self.point(value, model=False)
        if name == PEOPLE_PARAM and isinstance(value, list):
            return self.sep.join(self.person(str(v), prs=True) for v in value)
        if _is_pr_value(name, value):
            total = raw.get(name + TOTAL_SUFFIX)
            if isinstance(value, str):
                return self.pr_links([int(n) for n in _PR_NUMBER.findall(value)])
            if isinstance(value, list):
                return self.pr_list([int(v) for v in value], total if _is_int(total) else None)
            return self.pr_link(int(value))
        if name in CODE_PARAMS and value not in ("", []):
            return self._code_param(value)
        if name == TYPE_PARAM and isinstance(value, str):
            return self.change_type(value)
        if isinstance(value, list):
            return self.sep.join(self.text(str(v)) for v in value)
        if isinstance(value, bool):
            return str(value)
        if isinstance(value, int | float):
            return _plain_number(value)
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
            if _is_pr_value(name, value):
                template = template.replace(f"#{{{name}}}", f"{{{name}}}")
        return self.target.catalog(template).format_map(_Strict(params))

    def say(self, statement: Statement) -> str:
        """The statement's sentence; its PRs not already named in the sentence follow as links."""
        sentence = self.fill(statement.key, statement.params)
        template = self.tr.catalog[self._resolve(statement.key, statement.params)]
        used = {f for _, f, _, _ in string.Formatter().parse(template) if f}
        named = _prs_in(statement.params, used)
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

    # --- the model-written parts (which ones: core.analyst.sections) ------------------------

    def prose(self, value: str) -> str:
        """A model's checked sentence: escaped, `#N` linked, `code` spans shown as code."""
        parts = _BACKTICK_SPAN.split(value)
        return "".join(self.code(p) if i % 2 else self._spaced(p) for i, p in enumerate(parts))

    def _spaced(self, piece: str) -> str:
        """`text` of a piece between code spans, keeping the spaces that separate them."""
        stripped = piece.strip()
        if not stripped:
            return " " if piece else ""
        lead = " " if piece[0].isspace() else ""
        tail = " " if piece[-1].isspace() else ""
        return lead + self.text(stripped) + tail

    def item(self, item: AnalysisItem, skip: tuple[int, ...] = ()) -> str:
        """A checked item, followed by the PRs it rests on that it does not name (nor `skip`:
        a PR's own point need not name the PR it stands beside)."""
        rest = analysis.unnamed_prs(item, skip)
        if not rest:
            return self.prose(item.text)
        stop = _FINAL_STOP.search(item.text)
        body, end = (item.text[: stop.start()], stop.group()) if stop else (item.text, "")
        listed = self.tr.t("report.with_prs", sentence=self.prose(body), prs=self.pr_links(rest))
        return listed + (self.text(end) if end else "")

    def model_note(self) -> str:
        """Which parts a model wrote, its name, and that every sentence was checked ('' if none)."""
        if self.written is None:
            return ""
        return analysis.note(self.tr, self.written, self.target.text)

    def footer(self) -> str:
        """The report's last line: that rules made it, and which parts a model wrote if any."""
        tool = self.code("verl-week")
        if self.written is None:
            return self.tr.t("report.footer", tool=tool)
        return analysis.footer(self.tr, self.written, self.target.text, tool)

    def risk_text(self, risk: Risk, field: str) -> str:
        """Risk wording: the first of core's `message_keys` the catalog has (rule, then kind;
        a roll-up's summary is its `rollup` sentence)."""
        keys = message_keys(risk, field)
        key = next((k for k in keys if self.tr.has(k)), keys[-1])
        raw: dict[str, Any] = {"prs": list(risk.prs), **risk.params}
        if risk.prs:
            raw.setdefault("pr", risk.prs[0])
        return self.fill(key, raw)

    def risk_summary(self, risk: Risk) -> str:
        """The risk's summary, led by its PR link when the sentence does not name the PR."""
        sentence = self.risk_text(risk, "summary")
        missing = [n for n in risk.prs if self.pr_link(n) not in sentence]
        if not missing:
            return sentence
        return self.tr.t("report.risks.led", prs=self.pr_links(missing), sentence=sentence)

    def evidence(self, ev: Evidence, *, short: bool = False) -> str:
        """`path:line`（删除）`snippet` — where, on which side of the diff, and what."""
        where = f"{ev.path}:{ev.line}" if ev.path and ev.line is not None else ev.path or ""
        if ev.line is None and ev.path and ev.snippet.startswith(ev.path):
            where = ""  # a whole-file snippet (`a.py → b.py`) already names the file
        snippet = escape.truncate(ev.snippet, SNIPPET_CHARS) if short else ev.snippet
        parts = {
            "where": self.code(where) if where else "",
            "snippet": self.code(snippet) if snippet else "",
        }
        if ev.side is None:
            return self.tr.t("report.evidence_plain", **parts).strip()
        side = self.tr.t(f"report.side.{ev.side.value}")
        return self.tr.t("report.evidence", side=side, **parts).strip()

    def first_evidence(self, risks: list[Risk]) -> Evidence | None:
        """The first piece of evidence that points at a file line, else the first at all."""
        every = [ev for risk in risks for ev in risk.evidence]
        return next((ev for ev in every if ev.path and ev.line is not None), None) or next(
            iter(every), None
        )

    def risk_count(self) -> int:
        """Every PR's own risk, a roll-up's members counted one by one (the stats' sum)."""
        return len(leaf_risks(self.digest.risks))

    def risk_groups(self) -> list[RiskGroup]:
        return risk_groups(self.digest.risks)

    def recommendations(self, group: RiskGroup) -> list[str]:
        """The group's recommendations, each said once (roll-up members mostly share one)."""
        return list(dict.fromkeys(self.risk_text(r, "recommendation") for r in group.risks))

    def group_members(self, group: RiskGroup) -> list[list[Risk]]:
        """A group's risks by PR (a PR's first risk leads), in the group's order."""
        by_pr: dict[tuple[int, ...], list[Risk]] = {}
        for risk in group.risks:
            by_pr.setdefault(tuple(risk.prs), []).append(risk)
        return list(by_pr.values())

    def factor_text(self, factor: Factor) -> str:
        """A score factor's reason: `factor.<name>` from the catalog, else the model's reason."""
        key = f"factor.{factor.name}"
        if not self.tr.has(key):
            return self.text(factor.reason)
        return self.fill(key, factor.params)

    def factors(self, pr: ScoredPR) -> str:
        """The PR's non-zero factors, largest first, each with its signed points."""
        ranked = sorted((f for f in pr.factors if f.points), key=lambda f: -abs(f.points))
        items = (
            self.tr.t("report.top.factor", reason=self.factor_text(f), points=signed(f.points))
            for f in ranked
        )
        return self.sep.join(items)

    def label(self, group: str, name: str) -> str:
        """`report.<group>.<name>` (a category, type or source name), else the name itself."""
        key = f"report.{group}.{name}"
        return self.tr.t(key) if self.tr.has(key) else self.text(name)

    def category(self, name: str) -> str:
        return self.label("category", name)

    def change_type(self, name: str) -> str:
        return self.label("type", name)

    def types_in(self, category: str) -> str:
        """The change types of a category's PRs with their counts (`新功能 1、修复 1`)."""
        counts: dict[str, int] = {}
        for pr in self.digest.prs:
            if pr.category == category:
                counts[pr.change_type] = counts.get(pr.change_type, 0) + 1
        items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return self.sep.join(
            self.tr.t("report.trends.type_count", name=self.change_type(k), count=v)
            for k, v in items
        )

    def unknown(self) -> str:
        """The facts GitHub did not give this week, in one list ('' when it gave them all)."""
        return self.and_join([self.tr.t(f"report.unknown.{fact}") for fact in self.digest.unknown])


class _Strict(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        raise KeyError(f"catalog placeholder {{{key}}} has no value")


def _prs_in(params: dict[str, Any], used: set[str]) -> set[int]:
    """PR numbers the sentence names through the placeholders it uses."""
    out: set[int] = set()
    for name in used & set(params):
        value = params[name]
        if not _is_pr_value(name, value):
            continue
        if isinstance(value, str):
            out.update(int(n) for n in _PR_NUMBER.findall(value))
        elif isinstance(value, list):
            out.update(int(v) for v in value)
        else:
            out.add(int(value))
    return out
