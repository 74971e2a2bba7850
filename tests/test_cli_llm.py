"""`verl-week` with a language model, as a user runs it: a real subprocess pointed at a fake
OpenAI-compatible server by LLM_* settings; --no-llm; a model that never answers; half a
setting; the key in no output."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.openai import API_KEY, MODEL, FakeModel, recorded_answer, serve_model
from tests.processes import run_cli as run

pytestmark = pytest.mark.process

HEADLINE = "本周主线是 rollout 架构的进程分离与新推理引擎接入"
NOTE = f"由模型 {MODEL} 撰写，每一句都已与本周数据核对"


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with serve_model() as fake:
        fake.always(recorded_answer("2026-W04.good.zh"))
        yield fake


def llm_env(model: FakeModel, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite",
        "LLM_BASE_URL": model.url,
        "LLM_API_KEY": API_KEY,
        "LLM_MODEL": MODEL,
        "LLM_TIMEOUT_SECONDS": "5",
        **extra,
    }


def test_digest_writes_the_checked_narrative_and_caches_it_across_runs(
    model: FakeModel, tmp_path: Path
) -> None:
    env = llm_env(model, tmp_path)
    first = run(["digest", "--sample"], tmp_path, **env)
    assert first.returncode == 0, first.stderr
    assert HEADLINE in first.stdout
    assert NOTE in first.stdout
    second = run(["digest", "--sample", "--format", "json"], tmp_path, **env)
    assert '"analysis"' in second.stdout
    answer = run(["pr", "4280", "--sample"], tmp_path, **env)
    assert f"要点（模型 {MODEL} 撰写，已核对）：训练与推理拆到不同进程" in answer.stdout
    assert len(model.calls) == 1  # three processes, one model call
    for result in (first, second, answer):
        assert API_KEY not in result.stdout + result.stderr


def test_no_llm_keeps_digest_and_post_deterministic(model: FakeModel, tmp_path: Path) -> None:
    env = llm_env(model, tmp_path)
    digest = run(["digest", "--sample", "--no-llm"], tmp_path, **env)
    assert digest.returncode == 0, digest.stderr
    assert HEADLINE not in digest.stdout
    assert "由模型" not in digest.stdout
    post = run(["post", "--sample", "--dry-run", "--no-llm"], tmp_path, **env)
    assert post.returncode == 0, post.stderr
    assert model.calls == []


def test_a_model_that_never_answers_costs_the_timeout_then_the_week_goes_out(
    tmp_path: Path,
) -> None:
    with serve_model() as silent:
        silent.hang(times=100)
        env = llm_env(silent, tmp_path, LLM_TIMEOUT_SECONDS="1")
        result = run(["digest", "--sample"], tmp_path, **env)
    assert result.returncode == 0, result.stderr
    assert "## 执行摘要" in result.stdout
    assert "由模型" not in result.stdout
    skipped = [line for line in result.stderr.splitlines() if "model narrative skipped" in line]
    assert len(skipped) == 1
    assert "LLM_TIMEOUT_SECONDS=1 (timed out)" in skipped[0]
    assert API_KEY not in result.stderr


def test_half_a_model_setting_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = run(["digest", "--sample"], tmp_path, LLM_BASE_URL="http://127.0.0.1:9/v1")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "verl-week: error: invalid settings: LLM_MODEL is required with LLM_BASE_URL "
        "(the model to ask)"
    ]
