"""The proof that a period kind is one module (issue 29 §1): a release kind, from a fixture's
tag dates (core/periods/release.py, its words in templates/strings/<lang>/release.toml), is
registered and then used end to end by `verl-week digest --period v0.7.0` (in process, on
FakeGitHub serving the recorded January weeks): each digest holds exactly the PRs merged
between the two tags, is titled by its kind, and reads the release before it for its trends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from service.cli import main
from service.core.models import Period
from service.core.periods import kind_of, register
from service.core.periods.kinds import unregister
from service.core.periods.release import RELEASE, ReleaseRules
from service.render.environment import period_label
from tests.fakes.github import FakeGitHub
from tests.github.conftest import week_data
from tests.harness import GITHUB_TOKEN, REPO, fake_settings, running_fakes

TZ = "Asia/Shanghai"
PULLS = [*week_data("2026-W03")["pulls"], *week_data("2026-W04")["pulls"]]


@pytest.fixture
def tags() -> dict[str, date]:
    """Four releases' tag dates inside the recorded weeks (2026-01-12 to 2026-01-25): the
    first starts none (the release before a digest's, its trends' baseline, must exist)."""
    return {
        "v0.5.0": date(2026, 1, 12),
        "v0.6.0": date(2026, 1, 13),
        "v0.6.1": date(2026, 1, 16),
        "v0.7.0": date(2026, 1, 22),
    }


@pytest.fixture
def releases(tags: dict[str, date]) -> Iterator[ReleaseRules]:
    rules = register(ReleaseRules(tags))
    assert isinstance(rules, ReleaseRules)
    yield rules
    unregister(RELEASE)


def _merged_between(first: date, last: date) -> set[int]:
    zone = ZoneInfo(TZ)
    start = datetime.combine(first, datetime.min.time(), tzinfo=zone)
    end = datetime.combine(last, datetime.min.time(), tzinfo=zone)
    merged = {p["number"]: datetime.fromisoformat(p["merged_at"]) for p in PULLS}
    return {number for number, moment in merged.items() if start <= moment < end}


def test_a_release_is_a_period_of_its_own_kind(releases: ReleaseRules) -> None:
    period = Period.of_label("v0.7.0", TZ)
    assert (period.kind, kind_of("v0.7.0"), kind_of("2026-01")) == (RELEASE, RELEASE, "month")
    assert period.start.isoformat() == "2026-01-16T00:00:00+08:00"
    assert period.end.isoformat() == "2026-01-22T00:00:00+08:00"
    assert period.previous().label == "v0.6.1"
    assert period.weeks() == ["2026-W03", "2026-W04"]
    assert period_label("v0.7.0", "en") == "v0.7.0 (Jan 16, 2026 – Jan 22, 2026)"
    assert period_label("v0.7.0", "zh").startswith("v0.7.0（2026 年 1 月 16 日")


def test_digest_of_a_release_holds_the_prs_merged_between_its_tags(
    releases: ReleaseRules,
    tags: dict[str, date],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    github = FakeGitHub(REPO, token=GITHUB_TOKEN)
    for raw in PULLS:
        github.add_pr(raw)
    with running_fakes(github) as fakes:
        env = fake_settings(fakes, tmp_path, DIGEST_TIMEZONE=TZ, DIGEST_LANGUAGE="en")
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(tmp_path)
        assert main(["digest", "--period", "v0.6.1", "--format", "json", "--no-llm"]) == 0
        before = json.loads(capsys.readouterr().out)
        assert main(["digest", "--period", "v0.7.0", "--format", "json", "--no-llm"]) == 0
        digest = json.loads(capsys.readouterr().out)
        assert main(["digest", "--period", "v0.7.0", "--lang", "en", "--no-llm"]) == 0
        markdown = capsys.readouterr().out
    expected = _merged_between(tags["v0.6.1"], tags["v0.7.0"])
    assert expected  # the tags' dates hold PRs…
    assert expected < {p["number"] for p in PULLS}  # …and not every PR of the two weeks
    assert {p["number"] for p in digest["prs"]} == expected
    assert digest["week"] == "v0.7.0"
    assert (digest["start"], digest["end"]) == (
        "2026-01-16T00:00:00+08:00",
        "2026-01-22T00:00:00+08:00",
    )
    assert {p["number"] for p in before["prs"]} == _merged_between(tags["v0.6.0"], tags["v0.6.1"])
    # the trends are held against the stored release before, as the kind counts it
    assert digest["trends"]["previous_week"] == "v0.6.1"
    assert "v0.7.0 (Jan 16, 2026 – Jan 22, 2026)" in markdown.splitlines()[0]
    assert "this week" not in markdown
