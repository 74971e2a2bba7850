"""GitHub App login against FakeGitHub with an App installed (tests/fakes/github_app.py), which
checks every JWT as GitHub does (RS256 signature with the App's public key, iss, iat, exp) and
takes nothing but the installation tokens it minted: a real recorded verl week is collected
with an installation token (GraphQL and REST), the installation is found from the repository,
a token is minted again before it expires, a token that expires in the middle of a run is
replaced and the run completes, and GitHub Enterprise's paths are used."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from service import wiring
from service.core.profile import load_profile
from service.errors import AuthRefusedError, ConfigError
from service.github.app_auth import (
    JWT_LIFETIME_SECONDS,
    AppInstallationAuth,
    app_jwt,
    load_private_key,
)
from service.github.collect import collect_week
from service.github.http import GitHubHttp
from service.observe.logs import redact
from service.settings import Settings
from service.store.repository import Store
from tests.fakes.github import FakeGitHub
from tests.fakes.github_app import Clock, FakeGitHubApp, mount_enterprise
from tests.github.conftest import REPO, w04, week_data
from tests.processes import run_cli

W04_PRS = len(week_data("2026-W04")["pulls"])
TOKEN_PATH = "/app/installations/9001/access_tokens"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub(REPO, token=None)
    fake.serve_week(week_data("2026-W04"))
    with fake.running():
        yield fake


@pytest.fixture
def app(github: FakeGitHub, clock: Clock) -> FakeGitHubApp:
    return FakeGitHubApp(github, clock=clock)


@pytest.fixture
def app_http(
    github: FakeGitHub, app: FakeGitHubApp, clock: Clock, store: Store
) -> Iterator[Callable[..., GitHubHttp]]:
    made: list[GitHubHttp] = []

    def build(**auth: Any) -> GitHubHttp:
        values: dict[str, Any] = {
            "api_url": github.url,
            "app_id": app.app_id,
            "private_key": load_private_key(app.pem, "GITHUB_APP_PRIVATE_KEY"),
            "installation_id": app.installation_id,
            "clock": clock,
            "sleep": lambda _s: None,
        }
        values.update(auth)
        http = GitHubHttp(
            api_url=github.url,
            graphql_url=github.graphql_url,
            credentials=AppInstallationAuth(**values),
            cache=store,
            backoff_base=0.001,
            backoff_cap=0.01,
        )
        made.append(http)
        return http

    yield build
    for http in made:
        http.close()


def collect(http: GitHubHttp, store: Store) -> int:
    week = collect_week(http, REPO, w04(), load_profile(REPO), stored=store)
    assert week.completeness.complete, week.completeness.missing
    return len(week.prs)


def authorizations(github: FakeGitHub, *, skip: str = "/app/") -> list[str]:
    return [
        r.header("authorization") or ""
        for r in github.calls()
        if not r.path.startswith(skip) and "/installation" not in r.path
    ]


def test_a_week_is_collected_with_an_installation_token(
    github: FakeGitHub, app: FakeGitHubApp, app_http: Callable[..., GitHubHttp], store: Store
) -> None:
    http = app_http()
    assert collect(http, store) == W04_PRS
    assert len(app.minted) == 1
    assert app.refusals == []
    claims = app.jwt_claims[0]
    assert claims["iss"] == app.app_id
    assert claims["iat"] <= app.clock() - 59  # backdated against clock drift
    assert claims["exp"] - app.clock() <= JWT_LIFETIME_SECONDS <= 600
    sent = authorizations(github)
    assert sent
    assert set(sent) == {f"Bearer {app.minted[0]}"}
    assert github.calls("POST", "/graphql")  # GraphQL and REST alike
    assert any("/pulls/" in r.path for r in github.calls("GET"))


def test_the_installation_is_found_from_the_repository(
    github: FakeGitHub, app: FakeGitHubApp, app_http: Callable[..., GitHubHttp], store: Store
) -> None:
    http = app_http(installation_id=None, repo=REPO)
    assert collect(http, store) == W04_PRS
    assert len(github.calls("GET", f"/repos/{REPO}/installation")) == 1
    assert len(github.calls("POST", TOKEN_PATH)) == 1


def test_an_app_not_installed_on_the_repository_is_one_clear_line(
    github: FakeGitHub, app: FakeGitHubApp, app_http: Callable[..., GitHubHttp], store: Store
) -> None:
    http = app_http(installation_id=None, repo="someone/else")
    with pytest.raises(AuthRefusedError, match=r"not installed on someone/else: install it"):
        collect(http, store)


def test_a_token_is_minted_again_before_it_expires(
    github: FakeGitHub,
    app: FakeGitHubApp,
    app_http: Callable[..., GitHubHttp],
    store: Store,
    clock: Clock,
) -> None:
    http = app_http()
    assert collect(http, store) == W04_PRS
    clock.advance(3600 - 120)  # two minutes left on the hour-long token
    github.reset_log()
    assert collect(http, store) == W04_PRS
    assert len(app.minted) == 2
    assert app.refusals == []  # renewed before GitHub could refuse it
    assert set(authorizations(github)) == {f"Bearer {app.minted[1]}"}


@pytest.mark.parametrize("where", ["/graphql", f"/repos/{REPO}/pulls/"])
def test_a_token_that_expires_mid_run_is_replaced_and_the_run_completes(
    github: FakeGitHub,
    app: FakeGitHubApp,
    app_http: Callable[..., GitHubHttp],
    store: Store,
    where: str,
) -> None:
    http = app_http()
    app.expire_on(where)
    assert collect(http, store) == W04_PRS
    assert "token expired" in app.refusals
    assert len(app.minted) == 2
    refused = [s for m, p, s in github.answers if s == 401]
    assert refused
    assert authorizations(github)[-1] == f"Bearer {app.minted[1]}"


def test_a_jwt_github_refuses_is_one_line_naming_the_setting(
    github: FakeGitHub, app: FakeGitHubApp, app_http: Callable[..., GitHubHttp], store: Store
) -> None:
    http = app_http(app_id="1")
    with pytest.raises(AuthRefusedError) as info:
        collect(http, store)
    assert "check GITHUB_APP_ID (1)" in str(info.value)
    assert app.refusals == ["iss is not the App id"]
    other = load_private_key(FakeGitHubApp(FakeGitHub(REPO)).pem, "GITHUB_APP_PRIVATE_KEY")
    with pytest.raises(AuthRefusedError, match="private key is the App's current one"):
        collect(app_http(private_key=other), store)
    assert app.refusals[-1] == "bad signature"


# --- a host clock that is not GitHub's ---------------------------------------------------------


TIME_REFUSALS = {"iat in the future", "exp in the past"}


@pytest.mark.parametrize("skew", [180, -720], ids=["3 min fast", "12 min slow"])
def test_a_skewed_clock_is_corrected_from_githubs_date_header(
    github: FakeGitHub,
    app: FakeGitHubApp,
    app_http: Callable[..., GitHubHttp],
    store: Store,
    clock: Clock,
    skew: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    host = Clock(clock.now + skew)  # this host's clock; GitHub's Date says the fake's
    http = app_http(clock=host)
    assert collect(http, store) == W04_PRS
    assert len(app.refusals) == 1
    assert app.refusals[0] in TIME_REFUSALS  # refused once, then signed with GitHub's time
    assert len(app.minted) == 1
    assert any("github clock differs" in r.getMessage() for r in caplog.records)
    for moving in (clock, host):  # an hour on: the next token, minted in time, unrefused
        moving.advance(3600 - 120)
    github.reset_log()
    assert collect(http, store) == W04_PRS
    assert len(app.minted) == 2
    assert len(app.refusals) == 1  # the offset learnt is kept for later JWTs and expiries


@pytest.mark.parametrize("date", ["absent", "wrong"])
def test_a_clock_that_cannot_be_corrected_is_named_not_the_app_id(
    github: FakeGitHub,
    app: FakeGitHubApp,
    app_http: Callable[..., GitHubHttp],
    store: Store,
    clock: Clock,
    date: str,
) -> None:
    # a proxy strips GitHub's Date header, or rewrites it with its own (also slow) clock
    github.api.date_clock = None if date == "absent" else Clock(clock.now - 720)
    http = app_http(clock=Clock(clock.now - 720))
    with pytest.raises(AuthRefusedError) as info:
        collect(http, store)
    message = str(info.value)
    assert "clock is" in message
    assert "set it right (NTP" in message
    assert "GITHUB_APP_ID" not in message
    assert set(app.refusals) <= TIME_REFUSALS


# --- settings: the PEM as text or as a file, and GitHub Enterprise --------------------------


def app_settings(
    make_settings: Callable[..., Settings], github: FakeGitHub, app: FakeGitHubApp, **extra: Any
) -> Settings:
    values: dict[str, Any] = {
        "github_api_url": github.url,
        "github_graphql_url": github.graphql_url,
        "github_app_id": app.app_id,
        "digest_repos": REPO,
        **extra,
    }
    return make_settings(**values)


@pytest.mark.parametrize("form", ["text", "one line", "file"])
def test_the_private_key_is_read_as_text_or_from_a_file(
    make_settings: Callable[..., Settings],
    github: FakeGitHub,
    app: FakeGitHubApp,
    store: Store,
    tmp_path: Path,
    form: str,
) -> None:
    if form == "file":
        key_file = tmp_path / "verl-week.private-key.pem"
        key_file.write_text(app.pem, encoding="utf-8")
        key = {"github_app_private_key_file": str(key_file)}
    else:  # a .env value holds one line: its newlines written as \n
        key = {
            "github_app_private_key": app.pem.replace("\n", "\\n")
            if form == "one line"
            else app.pem
        }
    settings = app_settings(make_settings, github, app, **key)
    http = wiring.build_github(settings, store)
    try:
        assert collect(http, store) == W04_PRS
    finally:
        http.close()
    assert len(github.calls("GET", f"/repos/{REPO}/installation")) == 1  # id not set: found
    assert len(app.minted) == 1


def test_a_bad_private_key_is_a_config_error(
    make_settings: Callable[..., Settings], github: FakeGitHub, app: FakeGitHubApp, tmp_path: Path
) -> None:
    settings = app_settings(make_settings, github, app, github_app_private_key="not a key")
    with pytest.raises(ConfigError, match=r"^invalid setting GITHUB_APP_PRIVATE_KEY: not a PEM"):
        wiring.github_credentials(settings)
    missing = str(tmp_path / "nowhere.pem")
    settings = app_settings(make_settings, github, app, github_app_private_key_file=missing)
    with pytest.raises(ConfigError, match=r"^invalid setting GITHUB_APP_PRIVATE_KEY_FILE: cannot"):
        wiring.github_credentials(settings)
    assert not github.calls()


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"github_app_id": "1"}, "GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE is"),
        ({"github_app_private_key": "pem"}, "GITHUB_APP_ID is required"),
        (
            {
                "github_app_id": "1",
                "github_app_private_key": "a",
                "github_app_private_key_file": "b",
            },
            "not both",
        ),
    ],
)
def test_an_incomplete_app_setting_names_what_is_missing(
    make_settings: Callable[..., Settings], values: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        make_settings(**values)


def test_github_enterprise_mints_and_collects_under_its_own_paths(
    make_settings: Callable[..., Settings], github: FakeGitHub, app: FakeGitHubApp, store: Store
) -> None:
    mount_enterprise(github)
    settings = make_settings(
        github_api_url=f"{github.url}/api/v3",
        github_app_id=app.app_id,
        github_app_private_key=app.pem,
        github_app_installation_id=app.installation_id,
        digest_repos=REPO,
    )
    assert settings.graphql_url == f"{github.url}/api/graphql"
    http = wiring.build_github(settings, store)
    try:
        assert collect(http, store) == W04_PRS
    finally:
        http.close()
    paths = {r.path for r in github.calls()}  # as the fake received them, before its rewrite
    assert not [p for p in paths if p == "/graphql" or p.startswith(("/repos/", "/app/"))]
    assert len(app.minted) == 1
    assert json.dumps(app.jwt_claims[0])


# --- the command line, as a user runs it -------------------------------------------------------


@pytest.mark.process
def test_verl_week_digest_runs_on_the_app_alone_and_says_what_is_wrong(
    github: FakeGitHub, app: FakeGitHubApp, tmp_path: Path
) -> None:
    key_file = tmp_path / "app.pem"
    key_file.write_text(app.pem, encoding="utf-8")
    env = {
        "GITHUB_API_URL": github.url,
        "GITHUB_GRAPHQL_URL": github.graphql_url,
        "GITHUB_APP_ID": app.app_id,
        "GITHUB_APP_PRIVATE_KEY_FILE": str(key_file),
        "DIGEST_REPOS": REPO,
        "DATABASE_URL": f"sqlite:///{tmp_path}/verl-week.db",
    }
    args = ["digest", "--week", "2026-W04", "--format", "json"]
    done = run_cli(args, tmp_path, **env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(json.loads(done.stdout)["prs"]) == W04_PRS
    assert app.pem.splitlines()[1] not in done.stderr
    assert app.minted[0] not in done.stderr

    refused = run_cli(args, tmp_path, **{**env, "GITHUB_APP_ID": "7"})
    assert refused.returncode == 1
    lines = refused.stderr.strip().splitlines()
    assert lines[-1].startswith("verl-week: error: GitHub refused the App's signed request (401)")
    assert "Traceback" not in refused.stderr


@pytest.mark.process
def test_verl_week_digest_logs_in_with_a_host_clock_12_minutes_slow(
    github: FakeGitHub, tmp_path: Path
) -> None:
    ahead = FakeGitHubApp(github, clock=lambda: time.time() + 720)  # GitHub 12 min ahead
    key_file = tmp_path / "app.pem"
    key_file.write_text(ahead.pem, encoding="utf-8")
    env = {
        "GITHUB_API_URL": github.url,
        "GITHUB_GRAPHQL_URL": github.graphql_url,
        "GITHUB_APP_ID": ahead.app_id,
        "GITHUB_APP_PRIVATE_KEY_FILE": str(key_file),
        "DIGEST_REPOS": REPO,
        "DATABASE_URL": f"sqlite:///{tmp_path}/verl-week.db",
    }
    done = run_cli(["digest", "--week", "2026-W04", "--format", "json"], tmp_path, **env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(json.loads(done.stdout)["prs"]) == W04_PRS
    assert ahead.refusals == ["exp in the past"]
    assert "github clock differs" in done.stderr


def test_the_jwt_and_the_private_key_are_masked_in_logs(app: FakeGitHubApp) -> None:
    key = load_private_key(app.pem, "GITHUB_APP_PRIVATE_KEY")
    jwt = app_jwt(app.app_id, key, app.clock())
    for secret in (jwt, app.pem, app.pem.replace("\n", "\\n")):
        masked = redact(f"GitHub said {secret} then")
        assert masked.startswith("GitHub said ")
        assert secret not in masked
        assert "MII" not in masked
        assert jwt.split(".")[2] not in masked
