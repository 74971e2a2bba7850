"""`verl-week analyst-check` bounded and with the verification pass: a device or a huge file is
refused with one line and exit 2 (never read to the end), so is an answer of thousands of
sentences; `--verify` asks the verifier (the fake model) and prints its verdict on every
sentence the rules kept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.ops.analyst_check import MAX_FILE_BYTES, MAX_SENTENCES
from tests.fakes.openai import ANSWERS, API_KEY, MODEL, FakeModel, serve_model
from tests.processes import run_cli as run
from tests.test_cli_analyst_check import verdicts

pytestmark = pytest.mark.process

VERDICTS = ANSWERS / "2026-W04.verdicts.zh.json"


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with serve_model() as fake:
        yield fake


def env(tmp_path: Path, model: FakeModel | None = None) -> dict[str, str]:
    out = {"DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite"}
    if model is not None:
        out |= {"LLM_BASE_URL": model.url, "LLM_API_KEY": API_KEY, "LLM_MODEL": MODEL}
        out["LLM_VERIFY_TIMEOUT_SECONDS"] = "2"
    return out


def _refused(result_stderr: str, reason: str) -> None:
    lines = result_stderr.strip().splitlines()
    assert len(lines) == 1, result_stderr
    assert lines[0].startswith("verl-week: error: ")
    assert reason in lines[0]


def test_a_device_that_never_ends_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    result = run(["analyst-check", "/dev/zero", "--sample"], tmp_path, **env(tmp_path))
    assert result.returncode == 2
    _refused(result.stderr, f"larger than {MAX_FILE_BYTES:,} bytes")


def test_an_answer_of_thousands_of_sentences_is_refused(tmp_path: Path) -> None:
    answer = json.loads((ANSWERS / "2026-W04.good.zh.json").read_text(encoding="utf-8"))
    answer["summary"] = [{"text": "本周共合入 22 个 PR。", "prs": []}] * (MAX_SENTENCES + 1)
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(answer, ensure_ascii=False), encoding="utf-8")
    result = run(["analyst-check", str(path), "--sample"], tmp_path, **env(tmp_path))
    assert result.returncode == 2
    _refused(result.stderr, f"more than {MAX_SENTENCES:,}: not an answer")


def test_verify_prints_the_verifiers_verdict_on_each_kept_sentence(
    tmp_path: Path, model: FakeModel
) -> None:
    model.recorded_verdicts = {"zh": VERDICTS.read_text(encoding="utf-8")}
    answer = ANSWERS / "2026-W04.good.zh.json"
    args = ["analyst-check", str(answer), "--sample", "--verify"]
    result = run(args, tmp_path, **env(tmp_path, model))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].endswith("21 sentences, 19 kept, 2 dropped")
    found = verdicts(result.stdout)
    assert found["summary[2]"][0] == "dropped"
    assert found["summary[2]"][1].startswith("verifier contradicted: ")
    assert found["recommendations[1]"][1].startswith("verifier not_enough_information: ")
    assert found["headline"] == ["kept"]
    assert len(model.verify_calls) == 1
    assert model.calls == []  # the answer is the file's: no narrative asked
    # without --verify: the rules alone
    plain = run(["analyst-check", str(answer), "--sample"], tmp_path, **env(tmp_path, model))
    assert plain.stdout.splitlines()[0].endswith("21 sentences, 21 kept, 0 dropped")


def test_verify_with_a_failing_verifier_keeps_everything_and_says_so(
    tmp_path: Path, model: FakeModel
) -> None:
    model.verdict_fail(500, times=100)
    answer = ANSWERS / "2026-W04.good.zh.json"
    args = ["analyst-check", str(answer), "--sample", "--verify"]
    result = run(args, tmp_path, **env(tmp_path, model))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].endswith("21 sentences, 21 kept, 0 dropped")
    assert lines[-1].startswith("verifier: 21 sentences kept without a verdict: ")
    assert "HTTP 500" in lines[-1]


def test_verify_without_a_model_is_one_line_and_exit_2(tmp_path: Path) -> None:
    answer = ANSWERS / "2026-W04.good.zh.json"
    args = ["analyst-check", str(answer), "--sample", "--verify"]
    result = run(args, tmp_path, **env(tmp_path))
    assert result.returncode == 2
    _refused(result.stderr, "--verify needs a model")
