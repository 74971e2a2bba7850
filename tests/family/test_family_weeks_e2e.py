"""The verl family's recorded weeks 2026-W19 to W21 (tests/data/weeks/verl-project: verl,
verl-omni, verl-recipe and verl-vla, the last quiet in W19 and W20) end to end: one FakeGitHub
serves the four repositories, `verl-week digest` builds each week in turn (so each has its
previous week stored) in every format and both languages, and what a reader sees names the
family, links every PR to its own repository, shows no internal key, compares with the week
before, and keeps the cards within Slack's and Feishu's limits."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from service.cli import build_parser
from service.render.feishu_limits import feishu_violations
from service.render.limits import SlackMessage, slack_violations
from service.settings import Settings
from tests.fakes.github import FakeGitHub
from tests.family.conftest import FAMILY, family_env, settings_of
from tests.family.test_family_report import WEEKS, shown
from tests.harness import GITHUB_TOKEN, running_fakes

RECORDED = ("2026-W19", "2026-W20", "2026-W21")
FORMATS = ("markdown", "html", "json", "slack", "feishu")
# a PR link: to which repository, which number
_LINK = re.compile(r"https://github\.com/verl-project/([\w.-]+)/pull/(\d+)")


def _served(fake: FakeGitHub, repo: str) -> None:
    for week in RECORDED:
        path = WEEKS / f"{repo.rpartition('/')[2]}.{week}.json"
        if path.exists():
            fake.serve_week(json.loads(path.read_text("utf-8")))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str], str]:
    """Every week, language and format of the family, as `verl-week digest` writes it."""
    fake = FakeGitHub(FAMILY[0], token=GITHUB_TOKEN)
    _served(fake, FAMILY[0])
    for repo in FAMILY[1:]:
        _served(fake.add_repo(repo), repo)
    folder = tmp_path_factory.mktemp("weeks")
    out: dict[tuple[str, str, str], str] = {}
    with running_fakes(fake) as fakes:
        settings = settings_of(family_env(fakes, Path(folder)))
        for week in RECORDED:
            for lang in ("zh", "en"):
                for fmt in FORMATS:
                    out[week, lang, fmt] = _digest(settings, week, lang, fmt)
    return out


def _digest(settings: Settings, week: str, lang: str, fmt: str) -> str:
    path = Path(settings.database_url.split("///")[1]).parent / f"{week}.{lang}.{fmt}"
    args = ["digest", "--week", week, "--lang", lang, "--format", fmt, "--no-llm"]
    parsed = build_parser().parse_args([*args, "--output", str(path)])
    assert parsed.run(parsed, settings) == 0
    return path.read_text("utf-8")


def _prs_of(week: str) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for repo in FAMILY:
        name = repo.rpartition("/")[2]
        path = WEEKS / f"{name}.{week}.json"
        pulls = json.loads(path.read_text("utf-8"))["pulls"] if path.exists() else []
        out[name] = {p["number"] for p in pulls}
    return out


@pytest.mark.parametrize("week", RECORDED)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_recorded_week_reads_as_one_familys_report(
    built: dict[tuple[str, str, str], str], week: str, lang: str
) -> None:
    merged = _prs_of(week)
    for fmt in FORMATS:
        text = built[week, lang, fmt]
        seen = shown(text, fmt)
        assert not re.search(r"#\d000\d{4}\b|pull/\d000\d{4}\b|pr-\d000\d{4}", seen), fmt
        assert "verl-project/verl+" not in seen, fmt
        # every link to a PR of the week points at the repository that merged it
        for repo, number in _LINK.findall(text):
            if int(number) in merged.get(repo, set()):
                continue
            others = [r for r, prs in merged.items() if int(number) in prs]
            assert not others, (fmt, repo, number, others)
    data = json.loads(built[week, lang, "json"])
    assert [r["repo"] for r in data["repos"]] == list(FAMILY)
    assert [r["quiet"] for r in data["repos"]] == [not merged[r.rpartition("/")[2]] for r in FAMILY]
    title = {"zh": "verl-project 家族周报（", "en": "verl-project family weekly digest ("}[lang]
    assert built[week, lang, "markdown"].startswith(f"# {title}")
    if week != RECORDED[0]:  # the week before is stored: the trends compare with it
        assert data["trends"]["previous_week"] != week
        assert data["trends"]["previous_stats"] is not None


@pytest.mark.parametrize("week", RECORDED)
def test_the_cards_of_each_week_stay_within_the_platforms_limits(
    built: dict[tuple[str, str, str], str], week: str
) -> None:
    for lang in ("zh", "en"):
        payload = json.loads(built[week, lang, "slack"])
        message = SlackMessage(payload["text"], payload["blocks"])
        assert slack_violations(message) == [], (week, lang)
        card: dict[str, Any] = json.loads(built[week, lang, "feishu"])
        for via in ("app", "webhook"):
            assert feishu_violations(card, via=via) == [], (week, lang, via)
