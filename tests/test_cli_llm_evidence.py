"""`verl-week digest` replaying a model answer that carries evidence (quotes copied from the
prompt's data), as a user runs it: the true sentences, whose quotes and value claims hold, reach
every format; the false ones (a default told backwards, a made-up pin, an old value told as
new, a value the data does not hold) reach none and stand in the audit list with the claim that
failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.model_servers import serve_replay
from tests.fakes.openai import ANSWERS, API_KEY, MODEL
from tests.processes import run_cli as run

pytestmark = pytest.mark.process

ANSWER = ANSWERS / "2026-W04.evidence.en.json"
# kept in the analysis (json); the key points of the top PRs reach every format
KEPT = ["from 1024 to 256", "from eager to fused", "tensorrt-llm>=1.2.0rc6"]
KEPT_POINTS = ["gives the new", "a default of 300", "with a default of False"]
DROPPED = ["from 256 to 1024", "tensorrt-llm 1.3.0", "to -1 in the profiler", "to 16 for the"]
FORMATS = ("json", "markdown", "html", "slack", "feishu")


def test_an_answer_with_evidence_keeps_its_true_sentences_in_every_format(
    tmp_path: Path,
) -> None:
    outputs = {}
    with serve_replay(ANSWER) as replaying:
        settings = {
            "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite",
            "LLM_BASE_URL": replaying.url,
            "LLM_API_KEY": API_KEY,
            "LLM_MODEL": MODEL,
            "LLM_TIMEOUT_SECONDS": "20",
        }
        for fmt in FORMATS:
            result = run(
                ["digest", "--sample", "--lang", "en", "--format", fmt], tmp_path, **settings
            )
            assert result.returncode == 0, result.stderr
            outputs[fmt] = result.stdout
        assert len(replaying.calls) == 1  # the checked answer is cached with the week
    analysis = json.loads(outputs["json"])["analysis"]
    dropped = {d["text"]: d["reasons"] for d in analysis["dropped"]}
    assert len(dropped) == len(DROPPED)
    for said in DROPPED:
        reasons = next(r for text, r in dropped.items() if said in text)
        assert any(r.startswith(("value of", "quote of", "old value")) for r in reasons), reasons
    kept = json.dumps({k: v for k, v in analysis.items() if k != "dropped"}, ensure_ascii=False)
    for said in KEPT + KEPT_POINTS:
        assert said in kept, said
    for fmt, text in outputs.items():
        body = kept if fmt == "json" else text
        for said in KEPT_POINTS:
            assert said in body, (fmt, said)
        for said in DROPPED:
            assert said not in body, (fmt, said)
