"""The risk catalogs: same keys and placeholders in zh and en, a sentence for every rule."""

from __future__ import annotations

import re
import string
import tomllib
from pathlib import Path
from typing import Any

import pytest

from service.core.models import CollectedPeriod, Risk, RiskKind, Severity
from service.core.profile import RepoProfile
from service.core.risks import detect_risks, message_keys, message_params
from service.render.environment import templates_dir
from service.render.strings import LANGUAGES, Translator, load_catalog
from tests.core.risks.helpers import LABELS
from tests.core.risks.zoo import rollup_risks, zoo_risks

FIELDS = ("title", "summary", "recommendation")
ROLLUP_FIELDS = ("rollup", "rollup_recommendation")


def flat(table: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            out.update(flat(value, name))
        else:
            out[name] = str(value)
    return out


def risks_catalog(lang: str) -> dict[str, str]:
    path = templates_dir() / "strings" / lang / "risks.toml"
    return flat(tomllib.loads(path.read_text(encoding="utf-8")))


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def sentence(catalog: dict[str, str], risk: Risk, field: str) -> str:
    key = next(k for k in message_keys(risk, field) if k in catalog)
    return catalog[key].format(**message_params(risk))


def test_languages_have_the_same_keys_and_placeholders() -> None:
    zh, en = risks_catalog("zh"), risks_catalog("en")
    assert sorted(zh) == sorted(en)
    for key in zh:
        assert placeholders(zh[key]) == placeholders(en[key]), key


def test_every_kind_has_title_summary_recommendation_and_rollup() -> None:
    catalog = risks_catalog("en")
    for kind in RiskKind:
        for field in (*FIELDS, "rollup"):
            assert f"risk.{kind}.{field}" in catalog


def test_all_keys_are_risk_kind_or_rule_fields() -> None:
    kinds = {str(kind) for kind in RiskKind}
    for key in risks_catalog("en"):
        parts = key.split(".")
        assert parts[0] == "risk", key
        assert parts[1] in kinds, key
        assert parts[-1].removesuffix("_one").removesuffix("_bare") in (*FIELDS, *ROLLUP_FIELDS), (
            key
        )
        assert len(parts) in (3, 4), key


@pytest.mark.parametrize(
    ("rule", "params", "expected"),
    [
        ("removed_config_key", {"count": 1, "names": "step_start"},
         "PR #7 removes a configuration key (not declared breaking): step_start."),
        ("removed_config_key", {"count": 3, "names": "a, b, c"},
         "PR #7 removes 3 configuration keys (not declared breaking): a, b, c."),
    ],
)  # fmt: skip
def test_english_counts_agree_with_their_noun(
    rule: str, params: dict[str, str | int], expected: str
) -> None:
    risk = Risk(kind=RiskKind.BREAKING, rule=rule, severity=Severity.MEDIUM, prs=[7], params=params)
    translator = Translator("en", risks_catalog("en"))
    key = next(k for k in message_keys(risk, "summary") if translator.has(k))
    assert translator.t(key, **message_params(risk)) == expected


def test_no_english_sentence_hedges_a_plural() -> None:
    assert not [text for text in risks_catalog("en").values() if "(s)" in text or "(es)" in text]


def test_catalogs_load_through_the_shared_loader() -> None:
    for lang in LANGUAGES:
        loaded = load_catalog(str(templates_dir() / "strings"), lang)
        assert risks_catalog(lang).items() <= loaded.items()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_rule_of_every_detector_renders(lang: str, verl_profile: RepoProfile) -> None:
    catalog = risks_catalog(lang)
    translator = Translator(lang, catalog)
    risks = zoo_risks(verl_profile) + rollup_risks(verl_profile)
    rules = {(r.kind, r.rule) for r in risks}
    assert {kind for kind, _ in rules} == set(RiskKind)
    assert any(r.members for r in risks)
    for risk in risks:
        for field in FIELDS:
            key = next(k for k in message_keys(risk, field) if translator.has(k))
            text = translator.t(key, **message_params(risk))
            assert text
            assert "{" not in text.replace("${", "")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_real_risk_renders(lang: str, real_risks: dict[str, list[Risk]]) -> None:
    catalog = risks_catalog(lang)
    for label in LABELS:
        for risk in real_risks[label]:
            summary = sentence(catalog, risk, "summary")
            assert f"#{risk.prs[0]}" in summary


def test_followup_summary_names_both_prs(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    risks = detect_risks(weeks["2025-W47"].prs, verl_profile)
    revert = next(r for r in risks if r.rule == "revert")
    assert sentence(risks_catalog("en"), revert, "summary") == (
        "PR #4234 reverts #4221 ([megatron] fix: BF16 mode should use PAO as well), "
        "merged 1 h earlier."
    )
    assert sentence(risks_catalog("zh"), revert, "summary") == (
        "PR #4234 回滚了 1 小时前合入的 #4221（[megatron] fix: BF16 mode should use PAO as well）。"
    )


def test_shell_default_syntax_survives_formatting(verl_profile: RepoProfile) -> None:
    risk = next(r for r in zoo_risks(verl_profile) if r.rule == "rm_rf_unset_var")
    text = sentence(risks_catalog("en"), risk, "recommendation")
    assert "${CKPT_DIR:?}" in text


def test_catalog_files_exist_for_both_languages() -> None:
    for lang in LANGUAGES:
        assert Path(templates_dir(), "strings", lang, "risks.toml").is_file()


def test_rollup_sentences_name_every_pr(verl_profile: RepoProfile) -> None:
    rolled = {r.rule: r for r in rollup_risks(verl_profile)}
    en, zh = risks_catalog("en"), risks_catalog("zh")
    assert sentence(en, rolled["failing_checks"], "summary") == (
        "4 PRs were merged with failing checks: #60, #61, #62, #63."
    )
    assert sentence(zh, rolled["core_without_tests"], "summary") == (
        "4 个 PR 修改了核心代码但没有任何测试改动：#63, #62, #61, #60。"
    )
    assert sentence(en, rolled["failing_checks"], "recommendation").startswith("Re-run")
    assert (
        sentence(en, rolled["dtype_change"], "recommendation")
        == en["risk.precision.recommendation"]
    )


def test_new_rules_read_naturally(verl_profile: RepoProfile) -> None:
    risks = {r.rule: r for r in zoo_risks(verl_profile)}
    en, zh = risks_catalog("en"), risks_catalog("zh")
    assert sentence(en, risks["submodule"], "summary") == (
        "PR #27 moves recipe/ (4 files, 80 lines) into a git submodule; the code now lives at "
        "https://github.com/verl-project/verl-recipe.git, and users working from a checkout must "
        "run `git submodule update --init` after pulling."
    )
    assert sentence(zh, risks["removed_config_key"], "summary") == (
        "PR #28 删除了 1 个配置项，但未声明为破坏性变更：profiler.step_start。"
    )
    assert "token" not in sentence(en, risks["search_incomplete"], "recommendation")


@pytest.mark.parametrize(
    "key",
    [
        "rollup",
        "search_incomplete",
        "submodule",
        "removed_config_key",
        "renamed_module",
        "moved_config_key",
        "default_changed",
        "removed_flag",
        "removed_env",
        "moved_symbol",
        "moved_repository",
        "dtype_change",
    ],
)
def test_new_chinese_wording_has_no_english_words(key: str) -> None:
    # placeholders, `code`, and identifiers: PR, CI, API, [BREAKING], the main branch, dtype, …
    allowed = {"PR", "CI", "API", "BREAKING", "main", "dtype", "git", "import", "shell"}
    for name, text in risks_catalog("zh").items():
        if key not in name:
            continue
        plain = re.sub(r"\{[^}]*\}|`[^`]*`", "", text)
        words = set(re.findall(r"[A-Za-z]{2,}", plain)) - allowed
        assert not words, (name, words)
