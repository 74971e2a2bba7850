"""FakeModel: an OpenAI-compatible chat completions server on 127.0.0.1 (port 0), as vLLM,
SGLang, Ark, DeepSeek or OpenAI answer it.

POST /v1/chat/completions checks what a real server checks (the Bearer key, the model name,
the messages, a `response_format` of type json_schema with a named schema, or json_object) and
answers the next scripted step (or, with `by_language`, the answer for the language the system
prompt is written in): an answer (its text in choices[0].message.content, with usage
figures), malformed text, an HTTP error (429 with Retry-After, 500), or no answer at all (the
request hangs until the test ends). With `json_schema=False` it refuses json_schema with a 400,
as servers that take only json_object do.

A verification request (its data block opens with VERIFY_OPEN) is answered apart, from the
`verdicts` script (steps as above), else by judging every sentence entailed: `calls` are the
narrative's, `verify_calls` the verifier's, so a test of the narrative counts its own calls.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakes._server import FakeAPI, Recorded, Reply, serve

API_KEY = "sk-fake-model-key-0123456789abcdef"
MODEL = "fake-model-7b"
PATH = "/v1/chat/completions"
ANSWERS = Path(__file__).resolve().parent.parent / "data" / "llm"
HANG_LIMIT_SECONDS = 30.0
CHARS_PER_TOKEN = 3
CJK = re.compile(r"[\u4e00-\u9fff]")
VERIFY_OPEN = "<<<VERIFY_DATA"
VERIFY_CLOSE = "VERIFY_DATA>>>"


def recorded_answer(name: str) -> str:
    """A scripted answer from tests/data/llm (e.g. `2026-W04.good.zh`)."""
    return (ANSWERS / f"{name}.json").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Step:
    """One scripted reply: `content` (an answer), `status` (an HTTP error) or `hang`."""

    content: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    hang: bool = False


def _error(status: int, message: str, kind: str) -> Reply:
    return status, {}, {"error": {"message": message, "type": kind, "code": None}}


@dataclass
class FakeModel:
    api: FakeAPI = field(default_factory=FakeAPI)
    key: str = API_KEY
    model: str = MODEL
    json_schema: bool = True
    script: list[Step] = field(default_factory=list)
    default: Step | None = None
    languages: dict[str, Step] = field(default_factory=dict)
    verdicts: list[Step] = field(default_factory=list)
    # unscripted verification requests: a verdict per sentence, or a recorded answer per
    # language; else every sentence is entailed
    judge: Callable[[dict[str, Any]], tuple[str, str]] | None = None
    recorded_verdicts: dict[str, str] = field(default_factory=dict)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    # --- scenario helpers ------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The base URL a client is given (LLM_BASE_URL)."""
        return f"{self.api.url}/v1"

    def answer(self, content: str, times: int = 1) -> None:
        self.script += [Step(content=content)] * times

    def always(self, content: str) -> None:
        """Answer `content` whenever nothing else is scripted."""
        self.default = Step(content=content)

    def by_language(self, answers: dict[str, str]) -> None:
        """Whenever nothing else is scripted, answer in the language the prompt asks for (zh
        when its system message is Chinese, else en)."""
        self.languages = {lang: Step(content=content) for lang, content in answers.items()}

    def fail(self, status: int, *, retry_after: float | None = None, times: int = 1) -> None:
        headers = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
        self.script += [Step(status=status, headers=headers)] * times

    def hang(self, times: int = 1) -> None:
        """The next `times` requests get no answer (until the test ends)."""
        self.script += [Step(hang=True)] * times

    def verdict(self, content: str, times: int = 1) -> None:
        """The next `times` verification requests get `content`."""
        self.verdicts += [Step(content=content)] * times

    def verdict_fail(self, status: int, times: int = 1) -> None:
        self.verdicts += [Step(status=status)] * times

    def verdict_hang(self, times: int = 1) -> None:
        self.verdicts += [Step(hang=True)] * times

    @property
    def calls(self) -> list[Recorded]:
        """The narrative's calls (not the verifier's)."""
        return [c for c in self.api.calls("POST", PATH) if not is_verify(c)]

    @property
    def verify_calls(self) -> list[Recorded]:
        return [c for c in self.api.calls("POST", PATH) if is_verify(c)]

    def last_request(self) -> dict[str, Any]:
        body: dict[str, Any] = self.calls[-1].json()
        return body

    # --- the endpoint ----------------------------------------------------------------------

    def _next(self, rec: Recorded) -> Step | None:
        with self.lock:
            if self.script:
                return self.script.pop(0)
        if self.languages:
            system = rec.json()["messages"][0]["content"]
            return self.languages.get("zh" if CJK.search(system) else "en")
        return self.default

    def languages_asked(self) -> list[str]:
        """The language of each call's system prompt, in order."""
        return [
            "zh" if CJK.search(call.json()["messages"][0]["content"]) else "en"
            for call in self.calls
        ]

    def _refusal(self, rec: Recorded) -> Reply | None:
        if rec.header("authorization") != f"Bearer {self.key}":
            return _error(401, "Incorrect API key provided.", "invalid_request_error")
        body = rec.json()
        if not isinstance(body, dict) or body.get("model") != self.model:
            return _error(404, "The model does not exist.", "invalid_request_error")
        messages = body.get("messages")
        if not messages or not all({"role", "content"} <= set(m) for m in messages):
            return _error(400, "messages: each needs role and content", "invalid_request_error")
        fmt = body.get("response_format") or {}
        if fmt.get("type") == "json_schema":
            schema = fmt.get("json_schema") or {}
            if not self.json_schema:
                return _error(400, "response_format json_schema is not supported", "invalid")
            if not schema.get("name") or not isinstance(schema.get("schema"), dict):
                return _error(400, "json_schema needs a name and a schema", "invalid")
        elif fmt.get("type") != "json_object":
            return _error(400, "expected a JSON response_format", "invalid_request_error")
        return None

    def _completion(self, rec: Recorded, content: str) -> Reply:
        prompt = sum(len(m["content"]) for m in rec.json()["messages"]) // CHARS_PER_TOKEN
        completion = len(content) // CHARS_PER_TOKEN
        return (
            200,
            {},
            {
                "id": f"chatcmpl-{len(self.calls)}",
                "object": "chat.completion",
                "created": 1_769_000_000,
                "model": self.model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            },
        )

    def _next_verdicts(self, rec: Recorded) -> Step:
        with self.lock:
            if self.verdicts:
                return self.verdicts.pop(0)
        if self.recorded_verdicts:
            system = rec.json()["messages"][0]["content"]
            return Step(content=self.recorded_verdicts["zh" if CJK.search(system) else "en"])
        if self.judge is not None:
            return Step(content=judging(rec, self.judge))
        return Step(content=entailing(rec))

    def handle(self, rec: Recorded) -> Reply:
        refused = self._refusal(rec)
        if refused is not None:
            return refused
        step = self._next_verdicts(rec) if is_verify(rec) else self._next(rec)
        if step is None:
            return _error(500, "no answer scripted", "server_error")
        if step.hang:
            self.release.wait(HANG_LIMIT_SECONDS)
            return _error(504, "gave up", "server_error")
        if step.status != 200:
            reply = _error(step.status, f"scripted {step.status}", "server_error")
            return step.status, step.headers, reply[2]
        return self._completion(rec, step.content or "")


@contextmanager
def serve_model(**options: Any) -> Iterator[FakeModel]:
    """A FakeModel on loopback; requests left hanging are released when the test ends."""
    fake = FakeModel(**options)
    fake.api.route("POST", PATH, fake.handle)
    with serve(fake.api):
        try:
            yield fake
        finally:
            fake.release.set()


def as_json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False)


def is_verify(rec: Recorded) -> bool:
    """Whether a request asks for verdicts on sentences (the verification pass)."""
    body = rec.json()
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list) or not messages:
        return False
    return VERIFY_OPEN in str(messages[-1].get("content", ""))


def verify_data(rec: Recorded) -> dict[str, Any]:
    """The data block of a verification request: the cited PRs and the sentences."""
    text = rec.json()["messages"][-1]["content"]
    data: dict[str, Any] = json.loads(text.split(VERIFY_OPEN, 1)[1].split(VERIFY_CLOSE, 1)[0])
    return data


def judging(rec: Recorded, verdict_of: Callable[[dict[str, Any]], tuple[str, str]]) -> str:
    """A verifier's answer: `verdict_of(sentence)` → (verdict, reason) for every sentence."""
    verdicts = []
    for sentence in verify_data(rec)["sentences"]:
        verdict, reason = verdict_of(sentence)
        verdicts.append({"id": sentence["id"], "verdict": verdict, "reason": reason})
    return json.dumps({"verdicts": verdicts}, ensure_ascii=False)


def entailing(rec: Recorded) -> str:
    """Every sentence asked about judged entailed."""
    return judging(rec, lambda _sentence: ("entailed", "the facts state it"))
