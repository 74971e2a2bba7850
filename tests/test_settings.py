"""Settings: names of design.md, .env reading, one-line errors that name the setting."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.errors import ConfigError
from service.settings import Settings, derive_graphql_url, derive_web_url, load_settings

ROOT = Path(__file__).resolve().parents[1]


def test_defaults_follow_design() -> None:
    s = load_settings(_env_file=None)
    assert s.github_api_url == "https://api.github.com"
    assert s.graphql_url == "https://api.github.com/graphql"
    assert s.digest_repos == ["volcengine/verl"]
    assert s.digest_timezone == "Asia/Shanghai"
    assert s.digest_language == "zh"
    assert s.digest_schedule == "0 10 * * MON"
    assert s.database_url == "sqlite:///./data/verl-week.db"
    assert s.slack_api_url == "https://slack.com/api/"
    assert s.feishu_base_url == "https://open.feishu.cn"


def test_comma_lists_and_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIGEST_REPOS", "volcengine/verl, a/b")
    monkeypatch.setenv("SLACK_CHANNELS", "C1,C2")
    monkeypatch.setenv("ADMIN_USERS", "U1, ou_2")
    s = load_settings(_env_file=None)
    assert s.digest_repos == ["volcengine/verl", "a/b"]
    assert s.slack_channels == ["C1", "C2"]
    assert s.admin_users == ["U1", "ou_2"]


def test_destinations_take_a_language_each(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.settings import split_language

    monkeypatch.setenv("SLACK_CHANNELS", "C0123, C0456:en")
    monkeypatch.setenv("FEISHU_CHAT_IDS", "oc_a,oc_b:zh")
    monkeypatch.setenv("FEISHU_WEBHOOK_LANGUAGE", "en")
    s = load_settings(_env_file=None)
    assert [split_language(c) for c in s.slack_channels] == [("C0123", None), ("C0456", "en")]
    assert [split_language(c) for c in s.feishu_chat_ids] == [("oc_a", None), ("oc_b", "zh")]
    assert s.feishu_webhook_language == "en"
    assert (
        load_settings(_env_file=None, feishu_webhook_language=None).feishu_webhook_language is None
    )


def test_dotenv_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("DIGEST_LANGUAGE=en\nGITHUB_TOKEN=ghp_dotenv\n")
    monkeypatch.chdir(tmp_path)
    s = load_settings()
    assert s.digest_language == "en"
    assert s.github_token is not None
    assert "ghp_dotenv" not in repr(s)


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("DIGEST_REPOS", "foo", "owner/name"),
        ("DIGEST_TIMEZONE", "Mars/Olympus", "IANA timezone"),
        ("DIGEST_SCHEDULE", "every monday", "cron"),
        ("DIGEST_SCHEDULE", "0 10 30 2 *", "does not fire within 32 days"),
        ("DIGEST_MONTHLY_SCHEDULE", "0 10 31 4 *", "does not fire within 32 days"),
        ("GITHUB_API_URL", "not a url", "http(s) URL"),
        ("SLACK_API_URL", "ftp://x", "http(s) URL"),
        ("DIGEST_LANGUAGE", "fr", "'zh' or 'en'"),
        ("DATABASE_URL", "data.db", "SQLAlchemy URL"),
        ("SLACK_CHANNELS", "C1,C2:fr", "language (C0123:en), got 'C2:fr'"),
        ("FEISHU_CHAT_IDS", "oc_a,:en", "expected a chat id such as oc_abc, with :zh or :en"),
        ("FEISHU_WEBHOOK_LANGUAGE", "de", "'zh' or 'en'"),
        ("LOG_LEVEL", "verbose", "expected one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
        ("EVENTS_RETENTION_DAYS", "0", "greater than or equal to 1"),
    ],
)
def test_bad_value_is_one_line_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as info:
        load_settings(_env_file=None)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"invalid setting {name}:")
    assert expected in message


def test_enterprise_graphql_url_is_derived() -> None:
    assert (
        derive_graphql_url("https://ghe.example.com/api/v3")
        == "https://ghe.example.com/api/graphql"
    )
    assert derive_graphql_url("https://api.github.com/") == "https://api.github.com/graphql"
    s = load_settings(_env_file=None, github_api_url="https://ghe.example.com/api/v3")
    assert s.graphql_url == "https://ghe.example.com/api/graphql"


def test_env_example_lists_every_setting_with_a_comment() -> None:
    text = (ROOT / ".env.example").read_text()
    names = re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", text, flags=re.MULTILINE)
    assert names == [name.upper() for name in Settings.model_fields]
    lines = text.splitlines()
    for name in names:
        index = next(i for i, line in enumerate(lines) if re.match(rf"^#?\s*{name}=", line))
        assert lines[index - 1].startswith("# "), name


@pytest.mark.parametrize(
    ("api_url", "web_url"),
    [
        ("https://api.github.com", "https://github.com"),
        ("https://api.github.com/", "https://github.com"),
        ("https://ghe.example.com/api/v3", "https://ghe.example.com"),
        ("https://ghe.example.com/api/v3/", "https://ghe.example.com"),
        ("https://example.com/github/api/v3", "https://example.com/github"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
    ],
)
def test_the_web_host_is_derived_from_the_api_url(api_url: str, web_url: str) -> None:
    assert derive_web_url(api_url) == web_url
    assert load_settings(_env_file=None, github_api_url=api_url).github_web_url == web_url


def test_an_explicit_web_host_wins() -> None:
    s = load_settings(_env_file=None, github_web_url="https://git.corp.example")
    assert s.github_web_url == "https://git.corp.example"


def test_the_language_model_is_off_unless_url_and_model_are_set() -> None:
    plain = load_settings(_env_file=None)
    assert plain.llm_enabled is False
    assert plain.llm_timeout_seconds == 120
    on = load_settings(
        _env_file=None, llm_base_url="http://127.0.0.1:8000/v1", llm_model="Qwen/Qwen3-32B"
    )
    assert on.llm_enabled is True
    assert on.llm_api_key is None


@pytest.mark.parametrize(
    ("values", "needed"),
    [
        ({"LLM_BASE_URL": "http://127.0.0.1:8000/v1"}, "LLM_MODEL is required"),
        ({"LLM_MODEL": "deepseek-chat"}, "LLM_BASE_URL is required"),
    ],
)
def test_half_a_language_model_setting_is_one_line(
    monkeypatch: pytest.MonkeyPatch, values: dict[str, str], needed: str
) -> None:
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as info:
        load_settings(_env_file=None)
    assert str(info.value).startswith(f"invalid settings: {needed}")
    assert "\n" not in str(info.value)


def test_the_model_key_is_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-model-key-0123456789abcdef"
    monkeypatch.setenv("LLM_API_KEY", key)
    monkeypatch.setenv("LLM_TIMEOUT_SECONDS", "0")
    with pytest.raises(ConfigError) as info:
        load_settings(_env_file=None)
    assert str(info.value).startswith("invalid setting LLM_TIMEOUT_SECONDS:")
    assert key not in str(info.value)
    monkeypatch.setenv("LLM_TIMEOUT_SECONDS", "30")
    assert key not in repr(load_settings(_env_file=None))
