"""The checker's vocabulary, read once from service/data/glossary.toml: the concepts a sentence
may name (in English and Chinese), the actions, relations and claim words it reads.

The words live in data so that a new engine, model family or Chinese synonym is one line of
TOML, not code. English entries match whole words (`_`, `-`, `.` and `/` break words, a plural
`s` is allowed); Chinese entries match anywhere.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _term(word: str, breaks: str) -> str:
    """One entry as a pattern: Chinese anywhere, English as whole words (plural allowed);
    `breaks`: the characters that continue a word."""
    if _CJK.search(word):
        return word
    left = rf"(?<![{breaks}])" if word[:1].isalnum() or word[:1] in "([" else ""
    right = rf"(?:s|es)?(?![{breaks}])" if word[-1:].isalnum() or word[-1:] in "?)]*+" else ""
    return f"{left}{word}{right}"


def pattern(words: list[str], breaks: str = "a-z0-9") -> re.Pattern[str]:
    """One case-insensitive pattern for a list of entries, longest first."""
    ordered = sorted(words, key=len, reverse=True)
    return re.compile("|".join(f"(?:{_term(w, breaks)})" for w in ordered), re.IGNORECASE)


# a claim word is a whole word: `all` is not the start of `all_gather` or `all-reduce`
WORD_BREAKS = r"\w-"


@dataclass(frozen=True)
class Action:
    name: str
    pattern: re.Pattern[str]
    opposite: str
    evidence: re.Pattern[str]  # the words that show it in a PR's text (pattern and more)


@dataclass(frozen=True)
class Glossary:
    concepts: dict[str, re.Pattern[str]]
    actions: dict[str, Action]
    relations: dict[str, re.Pattern[str]]
    words: dict[str, re.Pattern[str]]
    buckets: dict[str, dict[str, re.Pattern[str]]]
    groups: dict[str, str]  # concept → its group
    any_concept: re.Pattern[str]  # every concept at once, each a named group
    nested: frozenset[str]  # concepts that may hide inside another's words

    def group_members(self, concept: str) -> list[str]:
        group = self.groups.get(concept)
        return [c for c, g in self.groups.items() if g == group] if group else []

    def concepts_in(self, text: str) -> dict[str, str]:
        """Each concept `text` names, with the words that named it first."""
        found: dict[str, str] = {}
        for match in self.any_concept.finditer(text):
            if match.lastgroup and match.lastgroup not in found:
                found[match.lastgroup] = match.group(match.lastgroup)
        # a name inside a longer one of another concept (`vl` in `qwen3-vl`) is said too
        for name in self.concepts.keys() - found.keys():
            if name in self.nested:
                inner = self.concepts[name].search(text)
                if inner:
                    found[name] = inner.group(0)
        return found

    def word(self, name: str) -> re.Pattern[str]:
        return self.words[name]

    def names_bucket(self, kind: str, key: str, text: str) -> bool:
        """Whether `text` names the trend bucket `key` of `kind` (by its key or a name;
        "chore-type", "refactor-category" and "doc-module" name it too)."""
        text = _BUCKET_SUFFIX.sub(r" \1", text)
        if re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", text, re.IGNORECASE):
            return True
        named = self.buckets.get(kind, {}).get(key)
        return named is not None and named.search(text) is not None


_BUCKET_SUFFIX = re.compile(r"-(categor(?:y|ies)|types?|modules?)\b", re.IGNORECASE)


def _action(name: str, raw: dict[str, Any]) -> Action:
    words = [*raw.get("en", []), *raw.get("zh", [])]
    shown = pattern([*words, *raw.get("evidence", [])], WORD_BREAKS)
    return Action(name, pattern(words, WORD_BREAKS), str(raw.get("opposite", "")), shown)


def _nested(concepts: dict[str, list[str]]) -> frozenset[str]:
    """Concepts one of whose words occurs inside a word of another concept."""
    out = set()
    for name, words in concepts.items():
        for other, others in concepts.items():
            if other != name and any(w in o for w in words for o in others if w != o):
                out.add(name)
    return frozenset(out)


def _hyphen_or_space(words: list[str]) -> list[str]:
    """A concept of two English words is written either way: "importance sampling" or
    "importance-sampling log-probs"."""
    return [w if _CJK.search(w) else w.replace(" ", "[ -]") for w in words]


def parse(text: str) -> Glossary:
    """The glossary of a TOML text (see service/data/glossary.toml for its shape)."""
    data = tomllib.loads(text)
    concepts = {name: _hyphen_or_space(words) for name, words in data["concepts"].items()}
    combined = "|".join(f"(?P<{name}>{pattern(words).pattern})" for name, words in concepts.items())
    return Glossary(
        any_concept=re.compile(combined or "(?!)", re.IGNORECASE),
        nested=_nested(concepts),
        concepts={name: pattern(words) for name, words in concepts.items()},
        actions={name: _action(name, raw) for name, raw in data["actions"].items()},
        relations={name: pattern(words, WORD_BREAKS) for name, words in data["relations"].items()},
        words={name: pattern(words, WORD_BREAKS) for name, words in data["words"].items()},
        buckets={
            kind: {key: pattern(words, WORD_BREAKS) for key, words in names.items()}
            for kind, names in data["buckets"].items()
        },
        groups={c: group for group, members in data["groups"].items() for c in members},
    )


@functools.cache
def glossary() -> Glossary:
    """The shipped glossary (read and compiled once)."""
    text = resources.files("service.data").joinpath("glossary.toml").read_text("utf-8")
    return parse(text)
