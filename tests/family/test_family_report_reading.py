"""What reading the verl family's recorded 2026-W21 report (verl, verl-omni, verl-recipe and
verl-vla) beside the hand-written verl report turned up: the bot hint named a family key no
user knows, English counts of one read "1 PRs", and a PR that only deletes a module was told as
code moved to a new location."""

from __future__ import annotations

import pytest

from service.core.models import Digest
from service.render.formats import render_format
from tests.family.conftest import FAMILY
from tests.family.test_family_report import URL, family_digest


@pytest.fixture(scope="module")
def w21() -> Digest:
    return family_digest("2026-W21", FAMILY, lang="en")


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_the_bot_hint_names_a_member_pr_as_the_pr_command_takes_it(w21: Digest, fmt: str) -> None:
    # the top PR is verl-recipe#103, whose family key is 20000103
    assert w21.prs[0].repo == "verl-project/verl-recipe"
    text = render_format(w21, fmt, "en", report_url=URL)
    assert "/verl-week pr verl-recipe#103" in text
    assert "20000103" not in text


def test_a_primary_pr_is_hinted_by_its_number(w21: Digest) -> None:
    verl_only = family_digest("2026-W21", FAMILY[:1] + FAMILY[1:2], lang="en")
    top = verl_only.prs[0]
    assert top.repo == "verl-project/verl"
    text = render_format(verl_only, "markdown", "en", report_url=URL)
    assert f"/verl-week pr {top.number}`" in text


def test_english_counts_of_one_are_singular(w21: Digest) -> None:
    text = render_format(w21, "markdown", "en", report_url=URL)
    line = "- **verl-vla**: 1 PR, +47 / -50 lines in 3 files, 1 contributor, 1 risk finding."
    assert line in text
    assert "- verl-vla: 1 PR (2% of the family's)." in text
    assert "**verl-omni**: 8 PRs," in text
    assert " 1 PRs" not in text
    assert " 1 contributors" not in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_module_deleted_is_told_as_removed_and_a_move_as_moved(lang: str) -> None:
    # verl-recipe#103 "move ascend recipes to ascend_recipe repo" and verl-recipe#101 "remove
    # legacy swe_agent module" both only delete: the first says where the code went
    digest = family_digest("2026-W21", FAMILY, lang=lang)
    text = render_format(digest, "markdown", lang, report_url=URL)
    said = {
        "zh": "代码迁移与删除：[verl-recipe#103]",
        "en": "Code moved and removed: [verl-recipe#103]",
    }[lang]
    assert said in text
    assert {"zh": "用户需要改用新的位置", "en": "users need the new location"}[lang] not in text


def test_a_migration_is_a_removal_only_when_no_lead_says_the_code_went_elsewhere(
    w21: Digest,
) -> None:
    from service.core.narrative import _moved_or_removed

    removed = next(p for p in w21.prs if p.title.endswith("remove legacy swe_agent module"))
    moved = next(p for p in w21.prs if "move ascend recipes" in p.title)
    assert _moved_or_removed("migration", [removed]) == "removal"
    assert _moved_or_removed("migration", [moved]) == "migration"
    assert _moved_or_removed("migration", [moved, removed]) == "migration_removal"
    assert _moved_or_removed("breaking", [removed]) == "breaking"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_pr_declared_breaking_has_its_upgrade_step(lang: str) -> None:
    # verl-omni#373 "[BREAKING] … make pixel responses always uint8": nothing renamed or
    # removed to name, so its step sends the reader to the PR's description
    text = render_format(
        family_digest("2026-W34", FAMILY, lang=lang), "markdown", lang, report_url=URL
    )
    upgrading = next(
        line for line in text.splitlines() if line.startswith(("**升级须知", "**Upgrading"))
    )
    said = {
        "zh": "「make pixel responses always uint8」声明为破坏性变更，升级前请先阅读 PR 说明。",
        "en": ", “make pixel responses always uint8”, is declared breaking: read its description",
    }[lang]
    assert said in upgrading


def test_the_family_counts_its_contributors_as_each_repository_does(w21: Digest) -> None:
    # two authors behind the `unknown` placeholder login are two people, in the header as in
    # the trends line
    assert w21.stats.contributors == len(w21.trends.contributors) == 37
    text = render_format(w21, "markdown", "en", report_url=URL)
    assert "contributors: 37" in text
    assert "37 contributors this week" in text
