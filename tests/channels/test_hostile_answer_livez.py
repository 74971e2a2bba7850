"""`serve` while the model answers a hostile text (a fence left open before thousands of
newlines: the old fence regex held the GIL for minutes on it). The narrator runs in a worker
thread (the scheduler's pool, or the thread pool a chat command runs in), never on the event
loop; with the answer parsed in linear time /livez keeps answering during the run, and the week
still posts, without the model's narrative."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import requests

from service.core.weeks import parse_week
from service.pipeline.jobs import RunResult, run_week
from tests.channels.conftest import REPO, TZ, WEEK, wired_service
from tests.fakes.openai import API_KEY, MODEL, serve_model
from tests.periods import period

HOSTILE = "```json\n" + "\n" * 200_000 + "{"


def test_livez_answers_while_a_hostile_answer_is_parsed_and_the_week_posts(
    tmp_path: Path,
) -> None:
    with serve_model() as model:
        model.always(HOSTILE)
        llm = {"LLM_BASE_URL": model.url, "LLM_MODEL": MODEL, "LLM_API_KEY": API_KEY}
        with wired_service(tmp_path, **llm) as wired:
            window = parse_week(WEEK, TZ, datetime.now(UTC))
            results: list[RunResult] = []
            worker = threading.Thread(
                target=lambda: results.append(run_week(wired.pipeline, REPO, window, trigger="t"))
            )
            worker.start()
            answers = []
            while worker.is_alive():
                answers.append(requests.get(f"{wired.url}/livez", timeout=5).json())
            worker.join()
            stored = wired.pipeline.store.get_digest(REPO, period(WEEK), "zh")
            posted = wired.slack.messages("C_ZH")
        assert model.calls  # the model was asked and answered the hostile text
    assert answers  # asked while the run went on
    assert all(answer == {"status": "ok"} for answer in answers)
    (result,) = results
    assert {o.action for o in result.outcomes} == {"posted"}
    assert posted
    assert stored is not None
    assert stored.analysis is None
