"""Catalog parity: every file of templates/strings/zh has an en twin with the same keys and
the same {placeholders}; English-only `_one` plural variants are allowed (zh has one form)."""

from __future__ import annotations

import string
import tomllib
from datetime import UTC, date, datetime
from typing import Any

import pytest

from service.render.environment import (
    format_date,
    format_number,
    period_label,
    signed,
    templates_dir,
)
from service.render.strings import LANGUAGES, Translator, load_catalog

STRINGS = templates_dir() / "strings"
PLURAL = "_one"


def _flat(table: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            out.update(_flat(value, name))
        else:
            out[name] = str(value)
    return out


def _file(lang: str, name: str) -> dict[str, str]:
    return _flat(tomllib.loads((STRINGS / lang / name).read_text(encoding="utf-8")))


def _placeholders(sentence: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(sentence) if field}


def _names(lang: str) -> set[str]:
    return {p.name for p in (STRINGS / lang).glob("*.toml")}


CATALOG_FILES = sorted(_names("zh") | _names("en"))


def test_both_languages_have_the_same_files() -> None:
    assert _names("zh") == _names("en")
    assert "report.toml" in _names("zh")


@pytest.mark.parametrize("name", CATALOG_FILES)
def test_same_keys_in_zh_and_en(name: str) -> None:
    zh, en = _file("zh", name), _file("en", name)
    only_en = {k for k in set(en) - set(zh) if not (k.endswith(PLURAL) and k[: -len(PLURAL)] in zh)}
    assert sorted(set(zh) - set(en)) == [], f"{name}: keys missing in en"
    assert sorted(only_en) == [], f"{name}: keys missing in zh"


@pytest.mark.parametrize("name", CATALOG_FILES)
def test_same_placeholders_in_zh_and_en(name: str) -> None:
    zh, en = _file("zh", name), _file("en", name)
    mismatched = {
        key: (sorted(_placeholders(zh[key])), sorted(_placeholders(en[key])))
        for key in set(zh) & set(en)
        if _placeholders(zh[key]) != _placeholders(en[key])
    }
    assert mismatched == {}


@pytest.mark.parametrize("name", CATALOG_FILES)
def test_plural_variants_use_no_placeholder_their_base_lacks(name: str) -> None:
    en = _file("en", name)
    extra = {
        key: sorted(_placeholders(sentence) - _placeholders(en[key[: -len(PLURAL)]]))
        for key, sentence in en.items()
        if key.endswith(PLURAL) and key[: -len(PLURAL)] in en
    }
    assert {k: v for k, v in extra.items() if v} == {}


@pytest.mark.parametrize("name", CATALOG_FILES)
def test_every_sentence_is_a_valid_format_string(name: str) -> None:
    for lang in LANGUAGES:
        for key, sentence in _file(lang, name).items():
            try:
                list(string.Formatter().parse(sentence))
            except ValueError as exc:
                pytest.fail(f"{lang}/{name} {key}: {exc}")


def test_no_key_is_defined_in_two_files() -> None:
    """Files merge into one catalog: a key in two files would silently shadow the other."""
    for lang in LANGUAGES:
        seen: dict[str, str] = {}
        clashes = []
        for name in CATALOG_FILES:
            for key in _file(lang, name):
                if key in seen:
                    clashes.append((key, seen[key], name))
                seen[key] = name
        assert clashes == [], lang


def test_translator_picks_the_one_variant_for_count_one() -> None:
    en = Translator("en", load_catalog(str(STRINGS), "en"))
    assert en.t("report.html.more_evidence", count=1) == "the one piece of evidence (expand)"
    assert en.t("report.html.more_evidence", count=3) == "all 3 pieces of evidence (expand)"
    zh = Translator("zh", load_catalog(str(STRINGS), "zh"))
    assert zh.t("report.html.more_evidence", count=1) == "全部 1 处证据（展开）"


def test_missing_key_and_missing_placeholder_raise() -> None:
    en = Translator("en", load_catalog(str(STRINGS), "en"))
    with pytest.raises(KeyError, match="missing catalog key"):
        en.t("report.no_such_key")
    with pytest.raises(KeyError, match="placeholder"):
        en.t("report.title", repo="volcengine/verl")


def test_format_filters_take_their_words_from_the_catalog() -> None:
    assert period_label("2026-W04", "zh") == "2026 年第 4 周"
    assert period_label("2026-W04", "en") == "Week 4, 2026"
    assert period_label("not-a-week", "en") == "not-a-week"
    assert format_date(date(2025, 11, 24), "zh") == "2025 年 11 月 24 日"
    assert format_date(datetime(2025, 11, 24, 3, tzinfo=UTC), "en", "short") == "Nov 24"
    assert format_date(date(2026, 1, 5), "en") == "Jan 5, 2026"
    assert [signed(3), signed(-2), signed(0), signed(None), signed(1.5)] == [
        "+3",
        "-2",
        "±0",
        "",
        "+1.5",
    ]
    assert format_number(12490) == "12,490"
    assert format_number(9.44, 1) == "9.4"
