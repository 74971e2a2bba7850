"""Chinese that reads as Chinese, English that reads as English: the report's own words (catalogs
and templates) hold no word of the other language, one word stands for one idea, and score
factors read as sentences.

How the language is checked honestly: every text of the digest that comes from GitHub (titles,
gists, names, risk parameters) is replaced by a placeholder in the report's own language, the
narrative is rebuilt from that digest, and the rendered report, with code spans and link targets
removed, may then hold Latin words (in zh) or Han characters (in en) only from a short list of
names that both languages write the same way."""

from __future__ import annotations

import functools
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from service.core.digest import build_digest
from service.core.models import Contributor, Digest, Risk
from service.core.narrative import build_narrative
from service.core.profile import load_profile
from service.render.environment import templates_dir
from service.render.report import render_html, render_markdown
from service.render.speaker import CODE_PARAMS
from tests.conftest import NOW, load_week

PREVIOUS = {"2025-W47": None, "2025-W48": "2025-W47", "2026-W03": None, "2026-W04": "2026-W03"}
# names that Chinese technical writing keeps in Latin letters (products, formats, acronyms)
PROPER_NAMES = frozenset(
    {"PR", "GitHub", "HTML", "JSON", "CI", "NPU", "Slack", "verl", "Ray", "NCCL", "macOS"}
)
PLACEHOLDER = {"zh": "某文本", "en": "sometext"}
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")
HAN = re.compile(r"[\u3400-\u9fff]")
LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def _risk(risk: Risk, text: str) -> Risk:
    params = {
        name: (text if isinstance(value, str) and name not in CODE_PARAMS else value)
        for name, value in risk.params.items()
    }
    members = [_risk(m, text) for m in risk.members]
    return risk.model_copy(update={"params": params, "members": members})


def neutral(digest: Digest, lang: str) -> Digest:
    """`digest` with every text GitHub gave replaced by a placeholder in `lang`."""
    text = PLACEHOLDER[lang]
    logins = {c.login: f"{text}{i}" for i, c in enumerate(digest.trends.contributors)}
    out = digest.model_copy(deep=True)
    for pr in out.prs:
        pr.title = f"[{pr.modules[0] if pr.modules else 'misc'}] fix: {text}"
        pr.gist = text if pr.gist else ""
        pr.author = logins.get(pr.author or "")
        pr.author_name = None
    out.trends.contributors = [
        Contributor(login=logins[c.login], name=None, prs=c.prs, first_time=c.first_time)
        for c in out.trends.contributors
    ]
    out.risks = [_risk(r, text) for r in out.risks]
    for relation in out.relations:  # an older PR's title, as GitHub gave it
        relation.other_title = f"[misc] fix: {text}"
    out.narrative = build_narrative(out)
    return out


@functools.cache
def recorded(week: str, lang: str) -> Digest:
    profile = load_profile("volcengine/verl")
    before = PREVIOUS[week]
    earlier = load_week(before) if before else None
    previous = build_digest(earlier, profile, language=lang, now=NOW) if earlier else None
    digest = build_digest(
        load_week(week),
        profile,
        language=lang,
        now=NOW,
        previous=previous,
        earlier=earlier.prs if earlier else None,
    )
    return neutral(digest, lang)


class _Text(HTMLParser):
    """The page's text without its <code>, <style> and <title> (SVG labels are module names)."""

    SKIP = frozenset({"code", "style", "title", "svg"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.depth:
            self.parts.append(data)


def html_words(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(parser.parts)


def markdown_words(markdown: str) -> str:
    return CODE_SPAN.sub(" ", LINK_TARGET.sub("]", markdown))


def foreign_words(text: str, lang: str, digest: Digest) -> set[str]:
    """Latin words in zh text, Han characters in en text, that are not proper names."""
    text = text.replace(digest.repo, " ").replace(digest.timezone, " ")
    if lang == "en":
        return set(HAN.findall(text))
    return {w for w in LATIN_WORD.findall(text) if w not in PROPER_NAMES}


@pytest.mark.parametrize("week", sorted(PREVIOUS))
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_markdown_report_speaks_one_language(week: str, lang: str) -> None:
    digest = recorded(week, lang)
    text = markdown_words(render_markdown(digest))
    # a PR title stays as written ("[module] fix: …"): its words are the title's, not ours
    text = re.sub(r"\\\[[\w, -]+\\\] fix: ", " ", text)
    assert foreign_words(text, lang, digest) == set()


@pytest.mark.parametrize("week", sorted(PREVIOUS))
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_html_report_speaks_one_language(week: str, lang: str) -> None:
    digest = recorded(week, lang)
    text = html_words(render_html(digest))
    text = re.sub(r"\[[\w, -]+\] fix: ", " ", text)
    found = foreign_words(text, lang, digest)
    # module tags are identifiers (`single_controller` reads as two Latin words)
    modules = {w for p in digest.prs for m in p.modules for w in LATIN_WORD.findall(m)}
    assert found - modules == set()


def test_the_check_finds_english_left_in_a_chinese_sentence() -> None:
    digest = recorded("2026-W04", "zh")
    assert foreign_words("本周合入 22 个 PR，来自 20 位 contributors。", "zh", digest) == {
        "contributors"
    }
    assert foreign_words("PRs merged: 22 · 贡献者", "en", digest) == {"贡", "献", "者"}


# --- one word per idea ------------------------------------------------------------------------


def _catalog(lang: str) -> dict[str, str]:
    out: dict[str, str] = {}

    def walk(prefix: str, table: dict[str, object]) -> None:
        for name, value in table.items():
            dotted = f"{prefix}.{name}" if prefix else name
            if isinstance(value, dict):
                walk(dotted, value)
            else:
                out[dotted] = str(value)

    for path in sorted((Path(templates_dir()) / "strings" / lang).glob("*.toml")):
        walk("", tomllib.loads(path.read_text(encoding="utf-8")))
    return out


# (the word we use, a synonym that must not appear): one idea, one word
ZH_SYNONYMS = [
    ("合入", "合并"),  # merging a PR
    ("重要性", "得分"),  # a PR's importance score
    ("评分依据", "评分因素"),  # the factors of the score
    ("评分依据", "得分因素"),
]
EN_SYNONYMS = [("importance", "Score:")]


@pytest.mark.parametrize(("lang", "pairs"), [("zh", ZH_SYNONYMS), ("en", EN_SYNONYMS)])
def test_one_word_per_idea(lang: str, pairs: list[tuple[str, str]]) -> None:
    catalog = _catalog(lang)
    for used, avoided in pairs:
        assert any(used in v for v in catalog.values()), used
        offenders = [k for k, v in catalog.items() if avoided in v]
        assert offenders == [], (avoided, offenders)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_category_has_one_name_and_the_catalogs_spell_no_other(lang: str) -> None:
    catalog = _catalog(lang)
    names = {k.rsplit(".", 1)[1]: v for k, v in catalog.items() if k.startswith("report.category.")}
    assert names
    for key, value in catalog.items():
        if key.startswith("report.category."):
            continue
        for name in names.values():
            # another key may not spell a category name in a longer or shorter form
            assert not (name in value and value != name and len(value) < len(name) + 4), (key, name)
    assert not [k for k in catalog if k.startswith(("narrative.category.", "narrative.theme."))]


def test_types_are_named_in_the_report_language() -> None:
    zh = _catalog("zh")
    assert (zh["report.type.feat"], zh["report.type.fix"]) == ("功能", "修复")


# --- score factors read as sentences ---------------------------------------------------------


def test_score_factors_read_naturally() -> None:
    profile = load_profile("volcengine/verl")
    expected = {
        "zh": [
            "改动 1047 行（+527/-520），按对数计分 <b>+4.5</b>",
            "标题标明是破坏性变更 <b>+2</b>",
            "96% 的改动行（1008/1047）在 22 个核心文件中 <b>+1.4</b>",
            "模块 <code>worker</code> 的权重为 1 <b>+1</b>",
            "变更类型为功能，权重 1 <b>+1</b>",
        ],
        "en": [
            "1047 changed lines (+527/-520), on a log scale <b>+4.5</b>",
            "the title marks it as a breaking change <b>+2</b>",
            "96% of the changed lines (1008 of 1047) in 22 core files <b>+1.4</b>",
            "module <code>worker</code> weighs 1 <b>+1</b>",
            "a feature change, weighing 1 <b>+1</b>",
        ],
    }
    for lang, lines in expected.items():
        digest = build_digest(load_week("2026-W04"), profile, language=lang, now=NOW)
        row = render_html(digest).split('<tr id="pr-4280">', 1)[1].split("</tr>", 1)[0]
        for line in lines:
            assert f"<li>{line}</li>" in row
        assert "）（" not in row
