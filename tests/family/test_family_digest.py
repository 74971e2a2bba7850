"""One digest over the verl family (core/family.py, core/crossings.py): the recorded 2026-W34 of
verl, verl-omni and verl-vla (verl-recipe quiet), its references in every format, and a small
fixture of code moved out of verl into verl-omni."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from service.core.crossings import find_crossings
from service.core.digest import build_digest
from service.core.family import merge_family
from service.core.models import (
    CollectedPeriod,
    Digest,
    FileChange,
    FileStatus,
    PullRequest,
    RelationKind,
)
from service.core.profile import load_profile
from service.core.scope import pr_key
from service.pipeline.recorded import week_from_recorded
from service.render import feishu, slack
from service.render.feishu_limits import feishu_violations
from service.render.formats import render_format
from service.render.limits import slack_violations
from tests.family.conftest import FAMILY, family_week, w34

NOW = datetime(2026, 8, 25, tzinfo=UTC)
OMNI, VLA = pr_key(1, 0), pr_key(3, 0)


def _week(repo: str) -> CollectedPeriod:
    data = family_week(repo)
    if not data["pulls"]:
        return CollectedPeriod(repo=repo, window=w34(), prs=[])
    return week_from_recorded({**data, "web_url": "https://github.com"}, NOW)


def family_digest(weeks: Sequence[CollectedPeriod], language: str = "en") -> Digest:
    repos = [w.repo for w in weeks]
    parts = [build_digest(w, load_profile(w.repo), language=language, now=NOW) for w in weeks]
    crossings, ties = find_crossings(repos, [w.prs for w in weeks])
    return merge_family(
        "verl-project",
        repos,
        parts,
        [w.prs for w in weeks],
        now=NOW,
        crossings=crossings,
        cross_relations=ties,
    )


@pytest.fixture(scope="module")
def w34_digest() -> Digest:
    return family_digest([_week(repo) for repo in FAMILY])


def test_one_digest_lists_each_repository_and_the_quiet_one(w34_digest: Digest) -> None:
    parts = {part.repo: part for part in w34_digest.repos}
    assert list(parts) == list(FAMILY)
    for repo in FAMILY:
        assert parts[repo].totals.prs == len(family_week(repo)["pulls"])
    assert parts["verl-project/verl-recipe"].quiet
    assert not parts["verl-project/verl-omni"].quiet
    assert w34_digest.stats.prs == sum(p.totals.prs for p in parts.values())
    assert w34_digest.stats.additions == sum(p.totals.additions for p in parts.values())
    assert w34_digest.repo == "verl-project"
    omni_top = parts["verl-project/verl-omni"].top[0]
    assert omni_top.ref == f"verl-omni#{omni_top.number}"
    assert omni_top.key == OMNI + omni_top.number
    # PRs carry their repository; the primary's keep their numbers
    assert {p.repo for p in w34_digest.prs} == {FAMILY[0], FAMILY[1], FAMILY[3]}
    assert w34_digest.pr(7347) is not None
    assert w34_digest.pr(OMNI + 398) is not None


def test_the_w34_cross_references_link_the_other_repositorys_prs(w34_digest: Digest) -> None:
    by_pr = {c.pr: c for c in w34_digest.crossings}
    # verl #7347 fixes a slowdown seen in a verl-omni (Qwen-Image) workload
    assert by_pr[7347].repo == "verl-project/verl-omni"
    assert by_pr[7347].prs == [OMNI + 398]
    # verl #7469 announces the verl-vla v0.1.0 release; verl-vla merged #21 that week
    assert by_pr[7469].repo == "verl-project/verl-vla"
    assert by_pr[7469].prs == [VLA + 21]
    ties = {(r.pr, r.other) for r in w34_digest.relations}
    assert {(7347, OMNI + 398), (7469, VLA + 21)} <= ties
    story = next(s for s in w34_digest.stories if 7469 in s.prs)
    assert VLA + 21 in story.prs  # one story across the two repositories


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_format_writes_and_links_references_by_repository(lang: str) -> None:
    digest = family_digest([_week(repo) for repo in FAMILY], lang)
    omni = "https://github.com/verl-project/verl-omni/pull/398"
    outputs = {
        fmt: render_format(digest, fmt, lang, report_url="http://reports.test/r")
        for fmt in ("markdown", "html", "json", "slack", "feishu")
    }
    assert f"[verl-omni#398]({omni})" in outputs["markdown"]
    assert "[#7347](https://github.com/verl-project/verl/pull/7347)" in outputs["markdown"]
    assert f'href="{omni}"' in outputs["html"]
    assert ">verl-omni#398</a>" in outputs["html"]
    assert f"<{omni}|verl-omni#398>" in outputs["slack"]
    assert f"[verl-omni#398]({omni})" in outputs["feishu"]
    # each repository's own risk line names its own PRs
    lines = outputs["markdown"].splitlines()
    risk_lines = [line for line in lines if line.startswith(("  Risks:", "  风险："))]
    omni_line = next(line for line in risk_lines if "verl-omni#373" in line)
    verl_line = next(line for line in risk_lines if "/verl/pull/7127" in line)
    assert "[#7127]" in verl_line
    assert "verl-omni#" not in verl_line
    assert "[#" not in omni_line  # verl-omni's PRs are named by their repository
    for fmt in ("markdown", "html", "slack", "feishu"):
        assert f"#{OMNI + 398}" not in outputs[fmt], fmt  # no family key is written
        assert "verl-recipe" in outputs[fmt], fmt  # the quiet repository is listed
    data = json.loads(outputs["json"])
    assert [r["repo"] for r in data["repos"]] == list(FAMILY)
    omni_part = data["repos"][1]
    assert set(omni_part["totals"]) == {
        "prs",
        "additions",
        "deletions",
        "files",
        "contributors",
        "risks",
    }
    assert omni_part["top"][0]["ref"].startswith("verl-omni#")
    assert data["repos"][2]["quiet"] is True
    assert Digest.model_validate_json(outputs["json"]).repos == digest.repos


def _pr(
    number: int, title: str, files: list[FileChange], body: str = "", day: int = 18
) -> PullRequest:
    merged = datetime(2026, 8, day, 8, tzinfo=UTC)
    return PullRequest(
        number=number,
        title=title,
        body=body,
        author="dev",
        created_at=merged - timedelta(days=2),
        merged_at=merged,
        additions=sum(f.additions for f in files),
        deletions=sum(f.deletions for f in files),
        changed_files=len(files),
        files=files,
    )


STACK = ("trainer.py", "rollout.py", "reward.py", "pipeline.py")


def _moved_out() -> PullRequest:
    removed = [
        FileChange(path=f"verl/diffusion/{name}", status=FileStatus.REMOVED, deletions=120)
        for name in STACK
    ]
    body = (
        "Move the Diffusion RL stack out of verl: it now lives in "
        "https://github.com/verl-project/verl-omni."
    )
    return _pr(6200, "[misc] refactor: move Diffusion RL stack to verl-omni", removed, body)


def _received(number: int, day: int) -> PullRequest:
    added = [
        FileChange(path=f"verl_omni/diffusion/{name}", status=FileStatus.ADDED, additions=120)
        for name in STACK
    ]
    return _pr(number, "[diffusion] feat: Diffusion RL trainer, rollout and reward", added, day=day)


def test_a_pr_moving_code_out_names_where_it_went_and_who_took_it_up() -> None:
    repos = FAMILY[:2]
    follow_up = _pr(
        26,
        "[diffusion] fix: reward scaling after the move",
        [FileChange(path="verl_omni/diffusion/reward.py", additions=3, deletions=1)],
        "Follows verl-project/verl#6200.",
        day=20,
    )
    crossings, ties = find_crossings(repos, [[_moved_out()], [_received(25, 19), follow_up]])
    moved = next(c for c in crossings if c.kind == "moved")
    assert (moved.pr, moved.repo) == (6200, "verl-project/verl-omni")
    assert moved.prs == [OMNI + 25, OMNI + 26]
    assert {(r.pr, r.other, r.kind) for r in ties} >= {
        (6200, OMNI + 25, RelationKind.MOVED),
        (6200, OMNI + 26, RelationKind.MOVED),
    }


def test_the_receiving_pr_may_be_of_a_stored_earlier_week() -> None:
    repos = FAMILY[:2]
    earlier = [{}, {"2026-W33": [_received(25, 12)]}]
    crossings, _ = find_crossings(repos, [[_moved_out()], []], earlier)
    moved = next(c for c in crossings if c.kind == "moved")
    assert moved.prs == [OMNI + 25]
    assert moved.week == "2026-W33"
    nowhere, _ = find_crossings(repos, [[_moved_out()], []])
    assert nowhere[0].prs == []  # it still names where the code went


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_tells_the_move(lang: str) -> None:
    weeks = [
        CollectedPeriod(repo=FAMILY[0], window=w34(), prs=[_moved_out()]),
        CollectedPeriod(repo=FAMILY[1], window=w34(), prs=[_received(25, 19)]),
    ]
    digest = family_digest(weeks, lang)
    text = render_format(digest, "markdown", lang, report_url="")
    sentence = next(
        line for line in text.splitlines() if "#6200" in line and "verl-omni#25" in line
    )
    assert "verl-omni" in sentence.replace("verl-omni#25", "")  # the repository named itself


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cards_of_four_busy_repositories_stay_within_the_platforms_limits(lang: str) -> None:
    busiest = family_week(FAMILY[0])  # verl's 26 PRs of the week, as each repository's
    weeks = [
        week_from_recorded({**busiest, "repo": repo, "web_url": "https://github.com"}, NOW)
        for repo in FAMILY
    ]
    digest = family_digest(weeks, lang)
    assert digest.stats.prs == 4 * len(busiest["pulls"])
    message = slack.render_digest(digest, report_url="http://reports.test/r", lang=lang)
    assert slack_violations(message) == []
    card = feishu.render_digest(digest, report_url="http://reports.test/r", lang=lang)
    for via in ("app", "webhook"):
        assert feishu_violations(card, via=via) == []
    assert "verl-vla#" in json.dumps(card, ensure_ascii=False)
