"""`verl-week serve` with no public URL: a real subprocess, started with the README's own settings,
against FakeSlack + its Socket Mode websocket and FakeFeishu + its long connection on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.fakes.asgi import free_port

ROOT = Path(__file__).resolve().parents[2]
EXIT_SECONDS = 60.0


@dataclass
class Serve:
    """`python -m service serve --no-scheduler` in `folder` with exactly `env` as settings."""

    folder: Path
    env: dict[str, str]
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def log_path(self) -> Path:
        return self.folder / "serve.log"

    def start(self) -> Serve:
        command = [
            sys.executable,
            "-m",
            "service",
            "serve",
            "--no-scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
        ]
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                command, cwd=self.folder, env=clean_env(self.env), stdout=log, stderr=log
            )
        return self

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_exit(self) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout=EXIT_SECONDS)

    def wait_serving(self) -> None:
        """Until /livez answers (uvicorn up), the process exits, or EXIT_SECONDS pass."""
        deadline = time.monotonic() + EXIT_SECONDS
        while time.monotonic() < deadline and self.proc is not None and self.proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/livez", timeout=2):
                    return
            except OSError:
                time.sleep(0.05)

    def stop(self) -> int | None:
        """SIGTERM; the exit code, or None when it had to be killed."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            # a long connection answers before uvicorn has its signal handlers: a SIGTERM
            # sent then kills the process instead of shutting it down
            self.wait_serving()
            self.proc.terminate()
            try:
                return self.proc.wait(timeout=EXIT_SECONDS)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=EXIT_SECONDS)
                return None
        return self.proc.returncode


def clean_env(settings: dict[str, str]) -> dict[str, str]:
    """This interpreter's environment without proxies or other verl-week settings, plus ours."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "SYSTEMROOT")}
    return {**keep, "PYTHONPATH": str(ROOT), **settings}


def cli(folder: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service", *args],
        cwd=folder,
        env=clean_env(env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def launched(tmp_path: Path) -> Iterator[list[Serve]]:
    """Every serve a test starts, stopped at its end."""
    started: list[Serve] = []
    yield started
    for serve in started:
        serve.stop()
