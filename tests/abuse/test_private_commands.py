"""A private repository (issue 19, items 10 and 11), through the service wired from settings as
`serve` wires it, against FakeGitHub saying the repository is private: commands answer about
it only in the chats its digest goes to (SLACK_CHANNELS, FEISHU_CHAT_IDS, subscribed chats)
and to ADMIN_USERS; anyone else gets a polite refusal in the chat's language and no signed
link. The unauthenticated /healthz names no repository and /metrics labels it by an opaque id
unless METRICS_REPO_NAMES=true."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests

from service.core.weeks import parse_week
from service.observe.metrics import opaque_repo
from service.pipeline.jobs import run_week
from tests.channels.conftest import (
    FEISHU_ADMIN,
    REPO,
    SLACK_ADMIN,
    TZ,
    WEEK,
    Wired,
    wired_service,
)

REFUSAL_EN = f"{REPO} is a private repository: I answer about it only in the channels"
REFUSAL_ZH = f"{REPO} 是私有仓库"
SIGNED = "?t="


@contextmanager
def private_service(folder: Path, **overrides: str) -> Iterator[Wired]:
    with wired_service(folder, **overrides) as wired:
        wired.github.private = True
        wired.build_week()
        assert wired.pipeline.store.repo_privacy(REPO) is True
        yield wired


@pytest.fixture
def private(tmp_path: Path) -> Iterator[Wired]:
    with private_service(tmp_path) as wired:
        yield wired


def text_of(answer: dict[str, object]) -> str:
    return json.dumps(answer, ensure_ascii=False)


@pytest.mark.parametrize("command", ["risks", "summary", "top 3", "trends", "week 2026-W04",
                                     "pr 4280", "pr 99999"])  # fmt: skip
def test_a_stranger_in_another_channel_is_refused(private: Wired, command: str) -> None:
    spent = len(private.github.api.requests)
    answer = text_of(private.slash(command, channel="C_OTHER"))
    assert REFUSAL_ZH in answer  # the server's default language
    assert SIGNED not in answer
    assert "/reports/" not in answer
    assert len(private.github.api.requests) == spent  # `pr 99999` asked GitHub nothing


def test_an_unknown_filter_key_lists_the_modules_only_to_readers(private: Wired) -> None:
    stranger = text_of(private.slash("risks colour:red", channel="C_OTHER"))
    assert "`colour:red`" in stranger
    assert "本周的模块：-。" in stranger  # no module name of the private week
    reader = text_of(private.slash("risks colour:red", channel="C_ZH"))
    assert "本周的模块：rollout, " in reader


def test_the_refusal_speaks_the_language_asked_for(private: Wired) -> None:
    answer = text_of(private.slash("risks lang:en", channel="C_OTHER"))
    assert REFUSAL_EN in answer
    assert "and to admins" in answer


def test_configured_and_subscribed_channels_and_admins_are_answered(private: Wired) -> None:
    configured = text_of(private.slash("risks", channel="C_EN"))
    assert "Risks · volcengine/verl · 2026-W04" in configured
    assert SIGNED in configured  # the report link of a private repository is signed
    admin = text_of(private.slash("risks", channel="C_OTHER", user=SLACK_ADMIN))
    assert REFUSAL_ZH not in admin
    assert WEEK in admin
    assert REFUSAL_ZH in text_of(private.slash("top 3", channel="C_SUB"))
    private.slash("subscribe", channel="C_SUB", user=SLACK_ADMIN)
    subscribed = text_of(private.slash("top 3", channel="C_SUB"))
    assert REFUSAL_ZH not in subscribed
    assert WEEK in subscribed


def test_feishu_groups_follow_the_same_rule(private: Wired) -> None:
    stranger = text_of(private.feishu_say("risks", chat_id="oc_group3"))
    assert REFUSAL_ZH in stranger
    assert SIGNED not in stranger
    configured = text_of(private.feishu_say("risks", chat_id="oc_group1"))
    assert REFUSAL_ZH not in configured
    assert WEEK in configured
    admin = text_of(private.feishu_say("risks", chat_id="oc_group3", sender=FEISHU_ADMIN))
    assert REFUSAL_ZH not in admin
    assert WEEK in admin


def test_a_public_repository_is_answered_everywhere(tmp_path: Path) -> None:
    with wired_service(tmp_path) as wired:
        wired.build_week()
        assert wired.pipeline.store.repo_privacy(REPO) is False
        answer = text_of(wired.slash("risks", channel="C_OTHER"))
        assert REFUSAL_ZH not in answer
        assert WEEK in answer


def ran(wired: Wired) -> None:
    window = parse_week(WEEK, TZ, datetime.now(UTC))
    result = run_week(wired.pipeline, REPO, window, trigger="test")
    assert result.outcome in ("ok", "partial"), result.error


def test_probes_and_metrics_say_nothing_of_a_private_repository(private: Wired) -> None:
    ran(private)
    health = requests.get(f"{private.url}/healthz", timeout=10)
    assert health.json()["last_run"]["week"] == WEEK
    assert "verl" not in health.text
    metrics = requests.get(f"{private.url}/metrics", timeout=10).text
    label = "repo-" + hashlib.sha256(REPO.encode()).hexdigest()[:10]  # stable across restarts
    assert opaque_repo(REPO) == label
    assert f'verl_week_runs_total{{outcome="ok",repo="{label}",trigger="test"}} 1.0' in metrics
    assert "volcengine" not in metrics
    assert "verl/" not in metrics


def test_metrics_name_private_repositories_when_the_operator_opts_in(tmp_path: Path) -> None:
    with private_service(tmp_path, METRICS_REPO_NAMES="true") as wired:
        ran(wired)
        metrics = requests.get(f"{wired.url}/metrics", timeout=10).text
        assert f'repo="{REPO}"' in metrics
        assert opaque_repo(REPO) not in metrics


def test_a_public_repository_keeps_its_name_on_metrics(tmp_path: Path) -> None:
    with wired_service(tmp_path) as wired:
        ran(wired)
        metrics = requests.get(f"{wired.url}/metrics", timeout=10).text
        assert f'repo="{REPO}"' in metrics
