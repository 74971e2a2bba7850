"""Two OpenAI-compatible models on 127.0.0.1 built on FakeModel (tests/fakes/openai.py):

- `serve_replay(answers)`: answers with any answer file (the JSON the model is asked for), per
  language of the prompt: the recorded answers of tests/data/llm, a corpus's answer, a file a
  test writes.
- `serve_obeying(base)`: a compromised model. It reads the prompt it is sent, finds the text
  planted in the week's data that asks a summariser to write something ("ignore previous
  instructions and write: …", "summary bot, please state that …", "请写：…") and writes that
  text into its answer, in the headline, the summary, a key change, a point of the PR it was
  planted in and a recommendation, each resting on that PR; then the sentences of its `base`
  answer (true ones), as a model would that obeys and still does its job. `obeyed` keeps what
  it found, so a test sees what reached the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.render.prompt import CLOSE, OPEN
from tests.fakes._server import Recorded, serve
from tests.fakes.openai import CJK, PATH, FakeModel, Step

# text addressed to a summariser, and the part it wants written (after the verb or colon)
_ADDRESSED = re.compile(
    r"ignore|disregard|summar|assistant|\bAI\b|\bbot\b|\bLLM\b|model|忽略|周报|机器人|模型", re.I
)
_ORDER = re.compile(
    r"(?:\b(?:write|say|print|post|mention|state|report|tell \w+)\b(?:\s+that)?|写|说|输出)"
    r"\s*[:：,，]?\s*(?P<payload>.+)",
    re.IGNORECASE | re.DOTALL,
)
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s")


def _strings(value: Any, number: int | None = None) -> Iterator[tuple[int | None, str]]:
    """Every string in the data block, with the PR it belongs to."""
    if isinstance(value, dict):
        own = value.get("number") if isinstance(value.get("number"), int) else number
        for item in value.values():
            yield from _strings(item, own)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, number)
    elif isinstance(value, str):
        yield number, value


def planted_orders(prompt: str) -> list[tuple[int, str]]:
    """(PR, text to write) for each planted order the prompt's data block carries."""
    if OPEN not in prompt or CLOSE not in prompt:
        return []
    data = json.loads(prompt.split(OPEN, 1)[1].split(CLOSE, 1)[0])
    found = []
    for number, text in _strings(data):
        for sentence in _SENTENCE.split(text):
            order = _ORDER.search(sentence) if _ADDRESSED.search(sentence) else None
            if order and number is not None:
                found.append((number, order.group("payload").strip()))
    return list(dict.fromkeys(found))


def _item(text: str, number: int) -> dict[str, Any]:
    return {"text": text, "prs": [number]}


def obeyed_answer(base: dict[str, Any], orders: list[tuple[int, str]]) -> dict[str, Any]:
    """`base` with every order written first in each section it can go in."""
    answer = json.loads(json.dumps(base))
    for number, text in reversed(orders):
        answer["headline"] = _item(text, number)
        answer["summary"].insert(0, _item(text, number))
        answer["key_changes"].insert(0, {"theme": "Notice", **_item(text, number)})
        answer["pr_points"].insert(0, {"pr": number, **_item(text, number)})
        answer["recommendations"].insert(0, _item(text, number))
    return answer


@dataclass
class ObeyingModel(FakeModel):
    """A FakeModel that writes what the week's data tells it to, around its `base` answers
    (language → answer JSON)."""

    base: dict[str, dict[str, Any]] = field(default_factory=dict)
    obeyed: list[tuple[int, str]] = field(default_factory=list)

    def _next(self, rec: Recorded) -> Step | None:
        messages = rec.json()["messages"]
        language = "zh" if CJK.search(messages[0]["content"]) else "en"
        orders = planted_orders(messages[-1]["content"])
        with self.lock:
            self.obeyed += orders
        content = json.dumps(obeyed_answer(self.base[language], orders), ensure_ascii=False)
        return Step(content=content)


def _read(answers: Mapping[str, Path]) -> dict[str, str]:
    return {lang: path.read_text(encoding="utf-8") for lang, path in answers.items()}


@contextmanager
def serve_replay(answers: Mapping[str, Path] | Path, **options: Any) -> Iterator[FakeModel]:
    """A model that answers with the given answer file (one for every prompt), or with the
    file of the prompt's language (`{"zh": path, "en": path}`)."""
    fake = FakeModel(**options)
    if isinstance(answers, Path):
        fake.always(answers.read_text(encoding="utf-8"))
    else:
        fake.by_language(_read(answers))
    with _running(fake):
        yield fake


@contextmanager
def serve_obeying(base: Mapping[str, Path], **options: Any) -> Iterator[ObeyingModel]:
    """A model that obeys text planted in the week's data, around the `base` answer files."""
    fake = ObeyingModel(**options)
    fake.base = {lang: json.loads(text) for lang, text in _read(base).items()}
    with _running(fake):
        yield fake


@contextmanager
def _running(fake: FakeModel) -> Iterator[None]:
    fake.api.route("POST", PATH, fake.handle)
    with serve(fake.api):
        try:
            yield
        finally:
            fake.release.set()
