"""The weekly cards on Slack and Feishu: summary lines link their PRs, the top five come with a
one-line point, at most three risk lines after roll-up, the Feishu header colour follows the
worst risk item, and the Feishu markdown escapes every PR reference the same way."""

from __future__ import annotations

import re
from typing import Any

import pytest

from service.core.mentions import risk_groups
from service.core.models import Digest, Evidence, EvidenceSide, Risk, RiskKind, Severity
from service.core.titles import parse_title
from service.render import feishu, slack
from tests.commands.builders import real_digest

REPORT = "http://reports.test/reports/volcengine/verl/2026-W04"
PR_URL = "https://github.com/volcengine/verl/pull/{}"
SEVERITY_ICONS = ("🔴", "🟠", "🟡")


def slack_sections(digest: Digest, lang: str) -> list[str]:
    message = slack.render_digest(digest, report_url=REPORT, lang=lang)
    return [b["text"]["text"] for b in message.blocks if b["type"] == "section"]


def feishu_markdown(digest: Digest, lang: str) -> list[str]:
    card = feishu.render_digest(digest, report_url=REPORT, lang=lang)
    return [e["content"] for e in card["body"]["elements"] if e["tag"] == "markdown"]


def _section(parts: list[str], heading: str) -> str:
    return next(p for p in parts if p.startswith(heading))


def rollup(kind: RiskKind, severity: Severity, numbers: list[int]) -> Risk:
    """A roll-up as the risk detectors make it: one Risk holding each PR's own risk."""
    members = [
        Risk(
            kind=kind,
            severity=severity,
            prs=[n],
            params={"files": 2, "lines": 40, "top_path": f"verl/m{n}.py"},
            evidence=[
                Evidence(
                    path=f"verl/m{n}.py", line=n % 97, snippet="def f():", side=EvidenceSide.ADDED
                )
            ],
        )
        for n in numbers
    ]
    return Risk(kind=kind, severity=severity, prs=numbers, members=members)


def with_risks(digest: Digest, risks: list[Risk]) -> Digest:
    out = digest.model_copy(update={"risks": risks}, deep=True)
    leaves = [m for r in risks for m in (r.members or [r])]
    out.stats.risks_high = sum(r.severity == Severity.HIGH for r in leaves)
    out.stats.risks_medium = sum(r.severity == Severity.MEDIUM for r in leaves)
    out.stats.risks_low = sum(r.severity == Severity.LOW for r in leaves)
    return out


# --- Slack ------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_slack_summary_links_every_pr_it_names(lang: str) -> None:
    digest = real_digest("2026-W04", language=lang)
    heading = "*执行摘要*" if lang == "zh" else "*Executive summary*"
    summary = _section(slack_sections(digest, lang), heading)
    numbers = [int(n) for n in re.findall(r"#(\d+)", summary)]
    assert 4280 in numbers
    for number in numbers:
        assert f"<{PR_URL.format(number)}|#{number}>" in summary
    assert not re.search(r"(?<!\|)#\d+", summary)  # no bare `#4775` left as text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_slack_top_five_each_with_a_point_that_is_not_the_title(lang: str) -> None:
    digest = real_digest("2026-W04", language=lang)
    heading = "*重要 PR*" if lang == "zh" else "*Top PRs*"
    lines = _section(slack_sections(digest, lang), heading).splitlines()[1:]
    assert len(lines) == 10
    for pr, line, point in zip(digest.prs[:5], lines[::2], lines[1::2], strict=True):
        assert line.startswith(f"• <{pr.url}|#{pr.number} ")
        assert point.startswith("↳ ")
        description = parse_title(pr.title).description
        assert description.lower() not in point.lower()
    # #4936's point is told from its facts in the card's language, never a body fragment
    assert "`patch_postprocess`" in lines[5]
    assert "Currently, RL training" not in lines[5]
    # #5033's body says nothing beyond its title, shown beside it: the point is what its files show
    assert "`verl/workers/engine/veomni/`" in lines[7]


def five_items(lang: str) -> Digest:
    """The sample week with two more risk items (a roll-up and a single risk): five in all."""
    digest = real_digest("2026-W04", language=lang)
    extra = [
        rollup(RiskKind.PRECISION, Severity.LOW, [4885, 4936, 4320, 4191]),
        Risk(
            kind=RiskKind.SECRET, severity=Severity.LOW, prs=[4998], params={"path": "a", "line": 1}
        ),
    ]
    return with_risks(digest, [*digest.risks, *extra])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_slack_shows_at_most_three_risk_lines(lang: str) -> None:
    digest = five_items(lang)
    assert len(risk_groups(digest.risks)) == 5
    heading = "*主要风险*" if lang == "zh" else "*Top risks*"
    risks = _section(slack_sections(digest, lang), heading).splitlines()
    lines = [line for line in risks if line.startswith(SEVERITY_ICONS)]
    assert len(lines) == 3
    assert lines[0].startswith("🔴")
    more = "……另有 2 项" if lang == "zh" else "…and 2 more"
    assert risks[-1].startswith(more)


def test_slack_a_roll_up_is_one_line_naming_its_worst_prs_first() -> None:
    digest = with_risks(
        real_digest("2026-W04", language="en"),
        [rollup(RiskKind.CORE_WITHOUT_TESTS, Severity.MEDIUM, [4936, 5033, 4931, 4632, 4191])],
    )
    risks = _section(slack_sections(digest, "en"), "*Top risk").splitlines()
    assert risks[0] == "*Top risk*"  # one item: the roll-up
    lines = [line for line in risks if line.startswith(SEVERITY_ICONS)]
    assert len(lines) == 1
    links = re.findall(r"\|#(\d+)>", lines[0])
    assert links == ["4936", "5033", "4931", "4632"]
    assert lines[0].endswith("and 1 more")


# --- Feishu -----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_feishu_summary_links_every_pr_it_names(lang: str) -> None:
    digest = real_digest("2026-W04", language=lang)
    summary = feishu_markdown(digest, lang)[0]
    numbers = [int(n) for n in re.findall(r"(?<!&)#(\d+)", summary)]
    assert 4280 in numbers
    for number in numbers:
        assert f"[#{number}]({PR_URL.format(number)})" in summary


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_feishu_escapes_every_pr_reference_the_same_way(lang: str) -> None:
    digest = real_digest("2026-W04", language=lang)
    text = "\n".join(feishu_markdown(digest, lang))
    assert "&#35;" not in text  # a `#` opening a line was escaped in one place, not in others
    refs = re.findall(r"\[#(\d+)\]\(", text)
    assert "4280" in refs
    # every reference, in a summary sentence or a point, is a link like every other
    bare = re.sub(r"\[#\d+\]\([^)]*\)|\*\*#\d+\*\*", "", text)
    assert not re.search(r"(?<!&)#\d", bare)  # `&#95;` is an escaped `_`


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_feishu_top_five_each_with_a_point(lang: str) -> None:
    digest = real_digest("2026-W04", language=lang)
    heading = "**重点 PR**" if lang == "zh" else "**Top PRs**"
    lines = _section(feishu_markdown(digest, lang), heading).splitlines()[1:]
    assert len(lines) == 10
    for pr, line, point in zip(digest.prs[:5], lines[::2], lines[1::2], strict=True):
        assert line.startswith(f"**#{pr.number}** [")
        assert point.startswith("↳ ")
        assert parse_title(pr.title).description.lower() not in point.lower()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_feishu_shows_at_most_three_risk_lines(lang: str) -> None:
    heading = "**风险" if lang == "zh" else "**Risks"
    lines = _section(feishu_markdown(five_items(lang), lang), heading).splitlines()[1:]
    assert len([line for line in lines if line.startswith(SEVERITY_ICONS)]) == 3
    more = "……另有 2 项" if lang == "zh" else "…and 2 more"
    assert lines[-1].startswith(more)


def _colour(digest: Digest) -> Any:
    return feishu.render_digest(digest, report_url=REPORT, lang="en")["header"]["template"]


def test_feishu_header_colour_follows_the_worst_risk_item() -> None:
    base = real_digest("2026-W04", language="en")
    assert _colour(base) == "red"  # #4280's declared breaking change is high
    medium = rollup(RiskKind.CORE_WITHOUT_TESTS, Severity.MEDIUM, [4936, 5033, 4931, 4632])
    low = rollup(RiskKind.PRECISION, Severity.LOW, [4885, 4936, 4320, 4191])
    assert _colour(with_risks(base, [medium, low])) == "orange"
    assert _colour(with_risks(base, [low])) == "yellow"
    assert _colour(with_risks(base, [])) == "green"
