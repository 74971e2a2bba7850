"""`verl-week doctor`'s checks of what breaks a deployment: each repository of DIGEST_REPOS and
its pull requests, the model endpoint and its model, the Slack app token (Socket Mode), Feishu's
event settings for the chosen mode; warnings (exit 0) apart from problems (exit 1)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.channels.conftest import Wired
from tests.channels.test_doctor import doctor, problems
from tests.fakes._server import Recorded, Reply
from tests.fakes.feishu_longconn import long_connection
from tests.fakes.openai import API_KEY, MODEL, FakeModel, serve_model
from tests.fakes.slack_socket import APP_TOKEN, socket_mode

pytestmark = pytest.mark.process

PULLS = "/repos/volcengine/verl/pulls"


def test_a_repository_that_does_not_exist(wired: Wired) -> None:
    code, lines = doctor(wired, DIGEST_REPOS="volcengine/verl,volcengine/nope")
    assert code == 1
    assert lines["repo"][0] == ("ok", "volcengine/verl: public, pull requests readable")
    assert problems(lines) == [
        "repo: volcengine/nope: not found, or the credentials can't see it (a private "
        "repository needs the token or app installed on it)"
    ]


def test_credentials_that_cannot_read_pull_requests(wired: Wired) -> None:
    refusal = {"message": "Resource not accessible by personal access token"}
    wired.github.broken[PULLS] = (403, {}, refusal)
    code, lines = doctor(wired)
    assert code == 1
    [found] = problems(lines)
    assert found.startswith("repo: volcengine/verl: its pull requests can't be read (GitHub ")
    assert "Resource not accessible by personal access token" in found
    assert found.endswith("give the credentials read access to Pull requests")


def test_a_refused_token_is_said_once_not_per_repository(wired: Wired) -> None:
    code, lines = doctor(wired, GITHUB_TOKEN="ghp_wrongTokenForTheDoctor")
    assert code == 1
    assert "repo" not in lines
    assert len(problems(lines)) == 1


def test_a_private_repository_is_named_so(wired: Wired) -> None:
    wired.github.private = True
    code, lines = doctor(wired)
    assert lines["repo"] == [("ok", "volcengine/verl: private, pull requests readable")]
    assert code == 0


# --- the model endpoint ------------------------------------------------------------------------


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with serve_model() as fake:

        def models(rec: Recorded) -> Reply:
            if rec.header("authorization") != f"Bearer {fake.key}":
                return 401, {}, {"error": {"message": "Incorrect API key provided."}}
            served = [
                {"id": name, "object": "model", "owned_by": "vllm"}
                for name in ("Qwen/Qwen3-8B", fake.model)
            ]
            return 200, {}, {"object": "list", "data": served}

        fake.api.route("GET", "/v1/models", models)
        yield fake


def model_env(model: FakeModel, **extra: str) -> dict[str, str]:
    return {"LLM_BASE_URL": model.url, "LLM_API_KEY": API_KEY, "LLM_MODEL": MODEL, **extra}


def test_the_model_endpoint_serves_the_model(wired: Wired, model: FakeModel) -> None:
    code, lines = doctor(wired, **model_env(model))
    host = model.url.split("//")[1].split("/")[0]
    assert lines["model"] == [("ok", f"{host} answers and serves {MODEL}")]
    assert code == 0
    assert model.api.calls("POST") == []  # no tokens spent: only the list was asked


def test_a_model_name_the_endpoint_does_not_serve(wired: Wired, model: FakeModel) -> None:
    code, lines = doctor(wired, **model_env(model, LLM_MODEL="Qwen/Qwen3-80B"))
    assert code == 1
    [found] = problems(lines)
    assert found.endswith(
        f"does not serve LLM_MODEL Qwen/Qwen3-80B; it serves: Qwen/Qwen3-8B, {MODEL}"
    )


def test_a_refused_model_key(wired: Wired, model: FakeModel) -> None:
    code, lines = doctor(wired, **model_env(model, LLM_API_KEY="sk-not-the-key-4242"))
    assert code == 1
    [found] = problems(lines)
    assert found.startswith("model: ")
    assert found.endswith("refused LLM_API_KEY (HTTP 401)")
    assert "sk-not-the-key-4242" not in str(lines)


def test_an_endpoint_without_a_model_list_is_a_warning(wired: Wired) -> None:
    with serve_model() as bare:  # chat completions only: GET /models is a 404
        code, lines = doctor(wired, **model_env(bare))
    assert code == 0
    [(status, message)] = lines["model"]
    assert status == "warning"
    assert "lists no models (GET /models: 404)" in message


def test_an_unreachable_model_endpoint(wired: Wired) -> None:
    code, lines = doctor(wired, LLM_BASE_URL="http://127.0.0.1:9/v1", LLM_MODEL=MODEL)
    assert code == 1
    assert problems(lines) == [
        "model: the model endpoint 127.0.0.1:9 is unreachable (ConnectionError)"
    ]


# --- the Slack app token --------------------------------------------------------------------------


def test_the_readme_socket_mode_setup(wired: Wired) -> None:
    with socket_mode(wired.slack):
        code, lines = doctor(wired, SLACK_APP_TOKEN=APP_TOKEN, SLACK_SIGNING_SECRET="")
    assert code == 0
    assert ("ok", "app token accepted: commands arrive over Socket Mode") in lines["slack"]
    assert wired.slack.calls("apps.connections.open")  # asked with the app token itself


@pytest.mark.parametrize(
    ("token", "code"),
    [("xapp-1-A0001-1-revoked", "invalid_auth"), ("xoxb-test-token", "not_allowed_token_type")],
)
def test_a_refused_app_token(wired: Wired, token: str, code: str) -> None:
    with socket_mode(wired.slack):
        exit_code, lines = doctor(wired, SLACK_APP_TOKEN=token)
    assert exit_code == 1
    [found] = problems(lines)
    assert found.startswith(f"slack: Slack refused SLACK_APP_TOKEN ({code}): create an app-level")
    assert token not in str(lines)


def test_an_app_token_without_a_bot_token(wired: Wired) -> None:
    code, lines = doctor(wired, SLACK_APP_TOKEN=APP_TOKEN, SLACK_BOT_TOKEN="")
    assert code == 1
    assert problems(lines) == [
        "slack: SLACK_APP_TOKEN is set without SLACK_BOT_TOKEN: Socket Mode needs the bot token "
        "to answer"
    ]


# --- Feishu's event mode ------------------------------------------------------------------------


def test_the_long_connection_setup(wired: Wired) -> None:
    with long_connection(wired.feishu) as socket:
        code, lines = doctor(wired, FEISHU_EVENT_MODE="websocket", FEISHU_VERIFICATION_TOKEN="")
    assert code == 0
    assert lines["feishu"][-1] == (
        "ok",
        "events arrive over the long connection (no public URL needed)",
    )
    assert socket.endpoint_calls() == 1
    assert socket.connections == []  # asked for a URL, never connected


def test_the_long_connection_refuses_the_secret(wired: Wired) -> None:
    with long_connection(wired.feishu):
        code, lines = doctor(wired, FEISHU_EVENT_MODE="websocket", FEISHU_APP_SECRET="bad-9")
    assert code == 1
    found = problems(lines)
    refused = (
        "feishu: Feishu refused a long connection for app cli_test (code 10014: app secret "
        "invalid): check FEISHU_APP_ID and FEISHU_APP_SECRET, and that the app subscribes to "
        "events through a long connection"
    )
    assert refused in found
    assert "bad-9" not in str(lines)


def test_websocket_mode_without_the_app(wired: Wired) -> None:
    code, lines = doctor(wired, FEISHU_EVENT_MODE="websocket", FEISHU_APP_ID="")
    assert code == 1
    assert "feishu: FEISHU_EVENT_MODE=websocket needs FEISHU_APP_ID and FEISHU_APP_SECRET" in (
        problems(lines)
    )


def test_http_mode_without_a_token_or_key(wired: Wired) -> None:
    code, lines = doctor(wired, FEISHU_VERIFICATION_TOKEN="")
    assert code == 1
    [found] = problems(lines)
    assert found.startswith("feishu: FEISHU_EVENT_MODE=http needs FEISHU_VERIFICATION_TOKEN or ")
    assert found.endswith("with no public URL, use FEISHU_EVENT_MODE=websocket")


def test_a_loopback_url_is_a_problem_for_cards_and_callbacks(wired: Wired) -> None:
    code, lines = doctor(wired, PUBLIC_BASE_URL="http://localhost:8080")
    assert code == 1
    assert problems(lines) == [
        "feishu: FEISHU_EVENT_MODE=http: Feishu can't reach http://localhost:8080/feishu/events; "
        "set PUBLIC_BASE_URL to the public address, or use FEISHU_EVENT_MODE=websocket",
        "url: PUBLIC_BASE_URL is http://localhost:8080: the cards' report links only work on this "
        "machine; set it to the address people reach the service at",
    ]


def test_a_loopback_url_without_any_chat_is_only_a_warning(wired: Wired) -> None:
    chats = ("SLACK_BOT_TOKEN", "SLACK_CHANNELS", "FEISHU_APP_ID", "FEISHU_CHAT_IDS")
    no_chat = dict.fromkeys((*chats, "FEISHU_WEBHOOK_URL"), "")
    code, lines = doctor(wired, PUBLIC_BASE_URL="http://localhost:8080", **no_chat)
    assert code == 0
    assert lines["url"] == [
        (
            "warning",
            "PUBLIC_BASE_URL is http://localhost:8080: report links work on this machine only",
        )
    ]
