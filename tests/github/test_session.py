"""EnvOnceSession: what requests reads from the environment for a request, read once per origin,
the same as requests' own Session finds."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from service.github import session as module
from service.github.session import NO_AUTH, EnvOnceSession

URLS = (
    "http://api.example.test/repos/o/r",
    "http://api.example.test/graphql",
    "https://api.example.test/x",
    "http://skip.example.test:8080/y",
    "http://127.0.0.1:9/z",
)


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine api.example.test login someone password secret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.test:3128")
    monkeypatch.setenv("NO_PROXY", "skip.example.test,127.0.0.1")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(tmp_path / "bundle.pem"))


@pytest.mark.usefixtures("environment")
def test_settings_and_netrc_are_requests_own() -> None:
    ours, theirs = EnvOnceSession(), requests.Session()
    for url in URLS * 2:
        assert ours.merge_environment_settings(url, {}, None, None, None) == (
            theirs.merge_environment_settings(url, {}, None, None, None)
        )
        own = ours.prepare_request(requests.Request("GET", url, auth=ours.auth_for(url)))
        found = theirs.prepare_request(requests.Request("GET", url))
        assert own.headers == found.headers
    assert ours.auth_for(URLS[0]) == ("someone", "secret")
    assert ours.auth_for(URLS[3]) is NO_AUTH


@pytest.mark.usefixtures("environment")
def test_read_once_per_origin(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    real = module.get_netrc_auth

    def counted(url: str) -> tuple[str, str] | None:
        asked.append(url)
        return real(url)

    monkeypatch.setattr(module, "get_netrc_auth", counted)
    ours = EnvOnceSession()
    for url in URLS * 3:
        ours.auth_for(url)
    assert len(asked) == 4  # two URLs of one origin
    settings = ours.merge_environment_settings(URLS[0], {}, None, None, None)
    settings["proxies"]["http"] = "changed"  # the caller's copy
    again = ours.merge_environment_settings(URLS[0], {}, None, None, None)
    assert again["proxies"]["http"] == "http://proxy.test:3128"


def test_given_proxies_are_merged_as_requests_does() -> None:
    ours, theirs = EnvOnceSession(), requests.Session()
    given = {"http": "http://mine.test:1"}
    assert ours.merge_environment_settings(URLS[0], dict(given), None, None, None) == (
        theirs.merge_environment_settings(URLS[0], dict(given), None, None, None)
    )
