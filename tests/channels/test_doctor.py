"""`verl-week doctor` as a user runs it (a subprocess): on a working setup every line is ok and
it exits 0; each broken piece gives a problem line saying what to do, and exit 1. No secret is
ever printed (Wired.cli checks every run's output)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from service.store.schema import code_heads
from tests.channels.conftest import FEISHU_APP_SECRET, Wired
from tests.fakes.feishu_signing import sign_feishu_webhook
from tests.harness import GITHUB_TOKEN as TOKEN
from tests.postgres.test_store_backends import at_revision

pytestmark = pytest.mark.process

HEAD = ", ".join(sorted(code_heads()))  # the newest revision this code ships

HOOK_SECRET = "hook-signing-secret-91"
(HEAD,) = code_heads()  # the revision this release needs


def doctor(wired: Wired, **env: str) -> tuple[int, dict[str, list[tuple[str, str]]]]:
    """Exit code and the lines by area: (ok|problem, message)."""
    done = wired.cli("doctor", **env)
    assert "Traceback" not in done.stderr, done.stderr
    lines: dict[str, list[tuple[str, str]]] = {}
    for line in done.stdout.splitlines():
        status, area, message = line.split(None, 2)
        lines.setdefault(area, []).append((status, message))
    assert "hook-token" not in done.stdout  # the webhook URL's own secret part
    return done.returncode, lines


def problems(lines: dict[str, list[tuple[str, str]]]) -> list[str]:
    return [f"{area}: {m}" for area, found in lines.items() for s, m in found if s == "problem"]


def test_a_working_setup_is_all_ok(wired: Wired) -> None:
    code, lines = doctor(wired)
    assert problems(lines) == []
    assert code == 0
    assert set(lines) == {
        "database",
        "github",
        "repo",
        "slack",
        "feishu",
        "webhook",
        "url",
        "helpers",
    }
    assert lines["helpers"] == [
        ("ok", "path globs: google-re2"),
        ("ok", f"shell-variable rule: shellcheck {Path(sys.executable).parent / 'shellcheck'}"),
    ]
    assert "token accepted; 5000 of 5000 requests left" in lines["github"][0][1]
    assert lines["repo"] == [("ok", "volcengine/verl: public, pull requests readable")]
    slack = {m.split(":")[0]: m for _, m in lines["slack"]}
    assert slack["token accepted"] == "token accepted: @bot in example"
    assert slack["channel C_ZH"] == "channel C_ZH: the bot is a member"
    assert slack["channel C_EN"] == "channel C_EN: the bot is a member"
    assert lines["feishu"] == [
        ("ok", "app cli_test got a tenant_access_token"),
        ("ok", "chat oc_group1: the bot is a member"),
        ("ok", "chat oc_group2: the bot is a member"),
        (
            "warning",
            "no FEISHU_ENCRYPT_KEY: events are checked by their token only (a key adds "
            "a signature and encryption)",
        ),
        (  # reports.test answers nothing: not claimed reachable (test_doctor_edges.py)
            "warning",
            "http://reports.test/feishu/events did not answer the URL check from this machine "
            "(ConnectionError): Feishu must reach it; check PUBLIC_BASE_URL, DNS and the proxy "
            "in front of verl-week (or use FEISHU_EVENT_MODE=websocket)",
        ),
    ]
    assert lines["url"] == [
        (
            "warning",
            "PUBLIC_BASE_URL http://reports.test is plain http: prefer https behind a proxy",
        )
    ]
    assert "takes unsigned messages" in lines["webhook"][0][1]
    assert lines["database"][0][1].endswith(f"schema at revision {HEAD} (current)")
    assert wired.slack.messages("C_ZH") == []  # nothing posted anywhere
    assert wired.feishu.hook_cards == []


def test_subscribed_channels_are_checked_too(wired: Wired) -> None:
    wired.pipeline.store.subscribe("slack", "C_SUB", "volcengine/verl", "U1", filter_text="")
    wired.pipeline.store.subscribe("feishu", "oc_gone", "volcengine/verl", "ou_1")
    code, lines = doctor(wired)
    assert ("ok", "channel C_SUB: the bot is a member") in lines["slack"]
    assert ("problem", "chat oc_gone: the bot is not in it: add it to the group") in lines["feishu"]
    assert code == 1


@pytest.mark.parametrize(
    ("env", "area", "needle"),
    [
        ({"GITHUB_TOKEN": "ghp_wrongTokenForTheDoctor"}, "github", "GitHub refused the token"),
        ({"GITHUB_TOKEN": ""}, "github", "no GITHUB_TOKEN: 60 of 60 requests left"),
        ({"SLACK_CHANNELS": "C_ZH,C_NOPE"}, "slack", "channel C_NOPE: not found"),
        ({"SLACK_SIGNING_SECRET": ""}, "slack", "neither SLACK_APP_TOKEN (Socket Mode, no "),
        ({"FEISHU_APP_SECRET": "not-the-secret"}, "feishu", "Feishu refused the app credentials"),
        ({"FEISHU_CHAT_IDS": "oc_group1,oc_elsewhere"}, "feishu", "chat oc_elsewhere: the bot"),
    ],
)  # fmt: skip
def test_each_broken_piece_is_one_problem(
    wired: Wired, env: dict[str, str], area: str, needle: str
) -> None:
    code, lines = doctor(wired, **env)
    assert code == 1
    [found] = problems(lines)
    assert found.startswith(f"{area}: ")
    assert needle in found
    for secret in env.values():
        if "secret" in secret or secret.startswith("ghp_"):
            assert secret not in str(lines)


def test_a_refused_slack_token(wired: Wired) -> None:
    wired.slack.fail_method("auth.test", "invalid_auth")
    code, lines = doctor(wired)
    assert code == 1
    assert problems(lines) == ["slack: Slack refused SLACK_BOT_TOKEN (invalid_auth)"]


def test_channels_the_bot_is_not_in(wired: Wired) -> None:
    wired.slack.add_channel("C_PUBLIC", member=False, public=True)
    wired.slack.add_channel("C_PRIVATE", member=False, public=False)
    code, lines = doctor(wired, SLACK_CHANNELS="C_PUBLIC,C_PRIVATE")
    assert (
        "ok",
        "channel C_PUBLIC: public; the bot joins it on the first post (channels:join)",
    ) in (lines["slack"])
    [found] = problems(lines)
    assert found == (
        "slack: channel C_PRIVATE: not found: check the id, or for a private channel invite "
        "the bot: /invite @verl-week"
    )
    assert code == 1


def test_the_webhook_signature_setting(wired: Wired) -> None:
    wired.feishu.hook_secret = HOOK_SECRET
    code, lines = doctor(wired)
    assert problems(lines) == [
        "webhook: signature refused: the bot wants signed messages: set FEISHU_WEBHOOK_SECRET"
    ]
    code, lines = doctor(wired, FEISHU_WEBHOOK_SECRET="not-the-hook-secret")
    assert problems(lines) == [
        "webhook: signature refused: FEISHU_WEBHOOK_SECRET does not match the bot's secret"
    ]
    code, lines = doctor(wired, FEISHU_WEBHOOK_SECRET=HOOK_SECRET)
    assert code == 0
    assert lines["webhook"] == [
        ("ok", f"{wired.feishu.url.split('//')[1]} accepts our signature"),
        (
            "ok",
            "destination feishu-webhook:default (the old name webhook:feishu still works, "
            "deprecated)",
        ),
    ]
    assert wired.feishu.hook_cards == []  # the probe posted nothing
    assert sign_feishu_webhook("1", HOOK_SECRET)  # the fake checks the real algorithm
    bad_hook = wired.env["FEISHU_WEBHOOK_URL"].replace("hook-token", "other-hook")
    code, lines = doctor(wired, FEISHU_WEBHOOK_URL=bad_hook)
    assert problems(lines) == [
        f"webhook: {wired.feishu.url.split('//')[1]} does not know this hook: copy "
        "FEISHU_WEBHOOK_URL again"
    ]


def test_a_database_behind_the_current_schema(wired: Wired, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/old.db"
    at_revision(url, "0001")
    code, lines = doctor(wired, DATABASE_URL=url)
    assert code == 1
    assert problems(lines) == [
        f"database: sqlite old.db is at revision 0001, this release needs {HEAD}: run "
        "`verl-week migrate` (serve and the scheduler also migrate on start)"
    ]
    wired.cli("migrate", DATABASE_URL=url)
    code, lines = doctor(wired, DATABASE_URL=url)
    assert lines["database"] == [
        ("ok", f"sqlite old.db reachable, schema at revision {HEAD} (current)")
    ]


def test_a_missing_or_unreachable_database(wired: Wired, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.db"
    code, lines = doctor(wired, DATABASE_URL=f"sqlite:///{missing}")
    assert code == 1
    assert "nowhere.db has no verl-week schema yet: `verl-week migrate`" in problems(lines)[0]
    assert not missing.exists()  # doctor looked, it created nothing
    password = "pg-password-never-shown"
    code, lines = doctor(
        wired, DATABASE_URL=f"postgresql+psycopg://verl:{password}@127.0.0.1:9/verl_week"
    )
    assert code == 1
    [found] = problems(lines)
    assert found.startswith("database: database unavailable")
    assert password not in str(lines)


def test_the_feishu_secret_is_not_printed_when_refused(wired: Wired) -> None:
    code, lines = doctor(wired, FEISHU_APP_SECRET="refused-app-secret-33")
    assert "refused-app-secret-33" not in str(lines)
    assert FEISHU_APP_SECRET not in str(lines)
    assert code == 1
    assert TOKEN not in str(lines)
