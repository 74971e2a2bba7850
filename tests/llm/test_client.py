"""The model client against a fake OpenAI-compatible server on loopback: one structured answer,
retries of timeouts, 429 and 5xx within LLM_TIMEOUT_SECONDS, refusals at once, json_object for
servers without json_schema, and no key in any error."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from service.core.analyst.schema import SCHEMA_NAME, response_format
from service.errors import ModelError
from service.llm.client import ModelClient
from tests.fakes.openai import API_KEY, MODEL, FakeModel, serve_model

MESSAGES = [{"role": "system", "content": "rules"}, {"role": "user", "content": "data"}]
ANSWER = '{"headline": {"text": "x", "prs": []}}'


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with serve_model() as model:
        yield model


def client(fake: FakeModel, timeout: float = 5.0, **options: object) -> ModelClient:
    return ModelClient(
        base_url=fake.url,
        api_key=options.pop("api_key", API_KEY),  # type: ignore[arg-type]
        model=options.pop("model", MODEL),  # type: ignore[arg-type]
        timeout_seconds=timeout,
        backoff_seconds=0.05,
    )


def test_one_structured_answer_with_usage(fake: FakeModel) -> None:
    fake.answer(ANSWER)
    completion = client(fake).complete(MESSAGES, response_format())
    assert completion.content == ANSWER
    assert completion.prompt_tokens > 0
    assert completion.completion_tokens == len(ANSWER) // 3
    sent = fake.last_request()
    assert sent["model"] == MODEL
    assert sent["messages"] == MESSAGES
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["name"] == SCHEMA_NAME
    assert sent["response_format"]["json_schema"]["schema"]["required"][0] == "headline"
    assert fake.calls[-1].header("authorization") == f"Bearer {API_KEY}"


@pytest.mark.parametrize(("status", "retry_after"), [(429, 0), (500, None), (502, None), (503, 0)])
def test_rate_limits_and_server_errors_are_retried(
    fake: FakeModel, status: int, retry_after: float | None
) -> None:
    fake.fail(status, retry_after=retry_after, times=2)
    fake.answer(ANSWER)
    assert client(fake).complete(MESSAGES, response_format()).content == ANSWER
    assert len(fake.calls) == 3


def test_a_server_that_never_answers_gives_up_at_the_deadline(fake: FakeModel) -> None:
    fake.hang(times=10)
    started = time.monotonic()
    with pytest.raises(ModelError, match=r"LLM_TIMEOUT_SECONDS=1 \(timed out\)"):
        client(fake, timeout=1.0).complete(MESSAGES, response_format())
    assert time.monotonic() - started < 3.0


def test_a_server_failing_all_along_gives_up_at_the_deadline(fake: FakeModel) -> None:
    fake.fail(500, times=1000)
    with pytest.raises(ModelError, match=r"HTTP 500"):
        client(fake, timeout=0.5).complete(MESSAGES, response_format())
    assert len(fake.calls) >= 2


def test_nothing_listening_is_a_connection_failure() -> None:
    with serve_model() as gone:
        url = gone.url
    broken = ModelClient(
        base_url=url, api_key=API_KEY, model=MODEL, timeout_seconds=0.5, backoff_seconds=0.05
    )
    with pytest.raises(ModelError, match="could not connect"):
        broken.complete(MESSAGES, response_format())


def test_a_refused_key_is_not_retried_and_not_shown(fake: FakeModel) -> None:
    wrong = "sk-wrong-key-abcdefghijklmnopqrstuvwxyz"
    with pytest.raises(ModelError, match=r"refused LLM_API_KEY \(401\)") as info:
        client(fake, api_key=wrong).complete(MESSAGES, response_format())
    assert wrong not in str(info.value)
    assert API_KEY not in str(info.value)
    assert len(fake.calls) == 1


def test_an_unknown_model_is_not_retried(fake: FakeModel) -> None:
    with pytest.raises(ModelError, match=r"LLM_MODEL 'nope' or LLM_BASE_URL not found \(404\)"):
        client(fake, model="nope").complete(MESSAGES, response_format())
    assert len(fake.calls) == 1


def test_a_server_without_json_schema_gets_json_object() -> None:
    with serve_model(json_schema=False) as fake:
        fake.answer(ANSWER)
        assert client(fake).complete(MESSAGES, response_format()).content == ANSWER
        kinds = [c.json()["response_format"]["type"] for c in fake.calls]
    assert kinds == ["json_schema", "json_object"]
