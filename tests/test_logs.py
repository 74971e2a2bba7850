"""Logging: text and JSON lines, the request id of the context, and secrets never written."""

from __future__ import annotations

import io
import json
import logging
import threading
from collections.abc import Iterator

import pytest

from service.observe.logs import (
    MASK,
    bound_request_id,
    build_handler,
    current_request_id,
    new_request_id,
    redact,
    setup_logging,
)

SECRETS = [
    "xoxb-12345678901-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "xoxp-1111-2222-3333-abcdef",
    "xapp-1-A0123456789-1234567890123-abcdef0123456789",
    "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    "sk-proj-abcdefghijklmnop1234",
    "t-g1044abcdefGHIJKLMNopqrstuvwxYZ012345",
]


@pytest.fixture
def logger() -> Iterator[tuple[logging.Logger, io.StringIO, io.StringIO]]:
    text, as_json = io.StringIO(), io.StringIO()
    log = logging.getLogger("tests.logs")
    handlers = [build_handler("text", text), build_handler("json", as_json)]
    for handler in handlers:
        log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    yield log, text, as_json
    for handler in handlers:
        log.removeHandler(handler)


@pytest.mark.parametrize("secret", SECRETS)
def test_token_shapes_are_masked(secret: str) -> None:
    masked = redact(f"posting with {secret} now")
    assert secret not in masked
    assert MASK in masked
    assert masked.startswith("posting with ")
    assert masked.endswith(" now")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Authorization: Bearer abcdef0123456789.xyz", "Bearer"),
        ("postgresql+psycopg://verl:hunter2-long@db:5432/verl", "postgresql+psycopg://verl:"),
        ('{"app_secret": "s3cr3t-value-123"}', '"app_secret": "'),
        ("signing_secret=8f742231b10e8888abcd99yyyzzz85a5", "signing_secret="),
        ("url?token=abcdef123456&x=1", "&x=1"),
    ],
)
def test_headers_urls_and_pairs_are_masked(text: str, kept: str) -> None:
    masked = redact(text)
    assert kept in masked
    assert MASK in masked
    for word in (
        "abcdef0123456789",
        "hunter2-long",
        "s3cr3t-value-123",
        "8f742231",
        "abcdef123456",
    ):
        assert word not in masked


def test_ordinary_text_is_untouched() -> None:
    line = "run finished repo=volcengine/verl week=2026-W04 prs=22 posted=3 seconds=4.2"
    assert redact(line) == line
    assert redact("GET /reports/volcengine/verl/2026-W04 200") == (
        "GET /reports/volcengine/verl/2026-W04 200"
    )


def test_secrets_in_args_extras_and_tracebacks_never_reach_the_output(
    logger: tuple[logging.Logger, io.StringIO, io.StringIO],
) -> None:
    log, text, as_json = logger
    token = SECRETS[0]
    log.info("token %s refused", token, extra={"header": f"Bearer {SECRETS[3]}"})
    try:
        raise RuntimeError(f"call failed with {SECRETS[4]}")
    except RuntimeError:
        log.exception("boom")
    for output in (text.getvalue(), as_json.getvalue()):
        for secret in SECRETS:
            assert secret not in output
        assert output.count(MASK) >= 3
    assert "RuntimeError" in text.getvalue()


def test_json_lines_carry_level_logger_request_id_and_extras(
    logger: tuple[logging.Logger, io.StringIO, io.StringIO],
) -> None:
    log, _text, as_json = logger
    log.warning("outside a request")
    with bound_request_id("req-42"):
        log.info("inside %s", "a request", extra={"repo": "volcengine/verl", "prs": 22})
    first, second = (json.loads(line) for line in as_json.getvalue().splitlines())
    assert first["request_id"] == "-"
    assert first["level"] == "WARNING"
    assert second == {
        "time": second["time"],
        "level": "INFO",
        "logger": "tests.logs",
        "request_id": "req-42",
        "message": "inside a request",
        "repo": "volcengine/verl",
        "prs": 22,
    }


def test_text_lines_carry_the_request_id_and_extras(
    logger: tuple[logging.Logger, io.StringIO, io.StringIO],
) -> None:
    log, text, _json = logger
    with bound_request_id("abc"):
        log.info("run finished", extra={"week": "2026-W04"})
    line = text.getvalue().strip()
    assert " INFO tests.logs [abc] run finished week=2026-W04" in line


def test_request_ids_are_per_context() -> None:
    seen: dict[str, str] = {}

    def worker(name: str) -> None:
        with bound_request_id(name):
            seen[name] = current_request_id()

    threads = [threading.Thread(target=worker, args=(f"r{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {f"r{i}": f"r{i}" for i in range(4)}
    assert current_request_id() == "-"
    assert new_request_id() != new_request_id()


def test_setup_logging_routes_root_and_library_loggers() -> None:
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        setup_logging("json", "debug", stream)
        logging.getLogger("uvicorn.error").info("started with %s", SECRETS[1])
        logging.getLogger("apscheduler.scheduler").debug("tick")
    finally:
        root.handlers = saved[0]
        root.setLevel(saved[1])
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["logger"] for line in lines] == ["uvicorn.error", "apscheduler.scheduler"]
    assert SECRETS[1] not in stream.getvalue()
