"""The command line imports what a command needs when it runs: `import service.cli` (all that
`--help` and `--version` need) loads no chat platform, database, scheduler or model client, and the
sample digest without a model loads no model client. Timings live in benchmarks/startup.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "openai",
    "slack_bolt",
    "slack_sdk",
    "sqlalchemy",
    "alembic",
    "starlette",
    "apscheduler",
    "uvicorn",
    "requests",
    "prometheus_client",
    "pydantic",
    "jinja2",
    "service.wiring",
)


def _loaded(code: str, cwd: Path) -> set[str]:
    env = os.environ | {"PYTHONPATH": str(ROOT), "DATABASE_URL": f"sqlite:///{cwd / 'w.db'}"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_importing_the_cli_loads_no_heavy_library(tmp_path: Path) -> None:
    loaded = _loaded(
        "import json, sys, service.cli; print(json.dumps(list(sys.modules)))", tmp_path
    )
    assert "service.cli" in loaded
    assert [name for name in HEAVY if name in loaded] == []


def test_help_loads_no_heavy_library(tmp_path: Path) -> None:
    code = (
        "import contextlib, io, json, sys\n"
        "from service.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--help'])\n"
        "print(json.dumps(list(sys.modules)))"
    )
    assert [name for name in HEAVY if name in _loaded(code, tmp_path)] == []


def test_sample_digest_without_a_model_loads_no_model_or_chat_client(tmp_path: Path) -> None:
    code = (
        "import contextlib, io, json, sys\n"
        "from service.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    code = main(['digest', '--sample'])\n"
        "assert code == 0 and out.getvalue().startswith('# volcengine/verl'), code\n"
        "print(json.dumps(list(sys.modules)))"
    )
    loaded = _loaded(code, tmp_path)
    assert "sqlalchemy" in loaded  # it did build the digest through the store
    assert [m for m in ("openai", "slack_bolt", "starlette", "uvicorn") if m in loaded] == []


def test_a_stored_sample_digest_loads_no_migration_metrics_or_analysis(tmp_path: Path) -> None:
    """The second `digest --sample` on a database at the code's schema re-renders the stored
    digest: it needs neither Alembic (the schema check reads the revision files), nor
    prometheus-client (nothing is scraped), nor the risk detectors and the narrator."""
    run = (
        "import contextlib, io, json, sys\n"
        "from service.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['digest', '--sample', '--no-llm']) == 0\n"
        "print(json.dumps(list(sys.modules)))"
    )
    first = _loaded(run, tmp_path)
    assert "alembic" in first  # a fresh database is migrated
    assert "service.core.risks.breaking" in first  # and the week analysed
    again = _loaded(run, tmp_path)
    unneeded = (
        "alembic",
        "prometheus_client",
        "service.core.risks.breaking",
        "service.pipeline.narrator",
    )
    assert [name for name in unneeded if name in again] == []
