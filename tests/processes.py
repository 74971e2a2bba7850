"""The one way a test starts the service as its own process: `python -m service ARGS` once
(`run_cli`), or a long-running `serve` / `scheduler` (`ServiceProcess`) with its log, health and
shutdown. Tests that use either are in the `process` tier (`@pytest.mark.process`):
tests/conftest.py refuses a Python or `verl-week` child in a test without the marker."""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from service.observe.metrics import opaque_repo
from tests.fakes.asgi import free_port
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[1]
CLI_SECONDS = 120.0
START_SECONDS = 60.0
STOP_SECONDS = 30.0
PORT_ATTEMPTS = 3
KEPT_VARIABLES = ("PATH", "HOME", "LANG", "SYSTEMROOT")
_instances = itertools.count(1)
CompletedProcess = subprocess.CompletedProcess[str]


def child_env(settings: Mapping[str, str], *, inherit: bool = True) -> dict[str, str]:
    """A child's environment: this checkout on PYTHONPATH, then `settings`.

    `inherit`: this interpreter's environment less proxies (tests/conftest.py has already
    removed every verl-week setting from it); otherwise only PATH, HOME and LANG, as a fresh
    shell with exactly the README's settings would have."""
    if inherit:
        base = {k: v for k, v in os.environ.items() if not k.upper().endswith("_PROXY")}
    else:
        base = {k: v for k, v in os.environ.items() if k in KEPT_VARIABLES}
    return {**base, "PYTHONPATH": str(ROOT), **settings}


def service_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "service", *args]


def run_cli(args: Sequence[str], cwd: Path | None = None, **settings: str) -> CompletedProcess:
    """`python -m service ARGS` in `cwd` with `settings` as environment variables, to its end."""
    return run_service(args, cwd, settings)


def run_service(
    args: Sequence[str],
    cwd: Path | None,
    settings: Mapping[str, str],
    *,
    inherit: bool = True,
    timeout: float = CLI_SECONDS,
) -> CompletedProcess:
    """`run_cli` with a choice of environment (see `child_env`) and time limit."""
    return subprocess.run(
        service_command(*args),
        cwd=cwd,
        env=child_env(settings, inherit=inherit),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def spawn(
    args: Sequence[str], cwd: Path, settings: Mapping[str, str], **popen: Any
) -> subprocess.Popen[bytes]:
    """`python -m service ARGS` started and left running (the caller waits or signals it)."""
    return subprocess.Popen(service_command(*args), cwd=cwd, env=child_env(settings), **popen)


@dataclass
class ServiceProcess:
    """One `python -m service serve` (or `scheduler`) on 127.0.0.1 in `folder`, with `env` as
    its settings; stdout and stderr of each start go to a log file in `folder`."""

    env: dict[str, str]
    folder: Path
    command: str = "serve"
    options: tuple[str, ...] = ()
    inherit: bool = True
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    runs: int = 0
    instance: int = field(default_factory=lambda: next(_instances))
    listening: bool = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def stderr_path(self) -> Path:
        """The log of the latest start."""
        return self._log_path(self.runs)

    def _log_path(self, run: int) -> Path:
        return self.folder / f"{self.command}-{self.instance}-{run}.log"

    def start(self, *, wait: bool = True) -> ServiceProcess:
        """Launch; with `wait`, until /healthz answers 200 (moving to another port when an
        xdist neighbour took this one). Without it, return at once (a start meant to fail)."""
        for attempt in range(PORT_ATTEMPTS):
            self._launch()
            if not wait:
                return self
            try:
                wait_for(
                    self.healthy, START_SECONDS, f"{self.command} healthy; log:\n{self.tail()}"
                )
            except AssertionError:
                if attempt + 1 < PORT_ATTEMPTS and self._port_was_taken():
                    self.port = free_port()
                    continue
                raise
            return self
        return self

    def _launch(self) -> None:
        self.runs += 1
        self.listening = False
        args = [self.command, *self.options, "--host", "127.0.0.1", "--port", str(self.port)]
        with self.stderr_path.open("wb") as log:
            self.proc = subprocess.Popen(
                service_command(*args),
                cwd=self.folder,
                env=child_env(self.env, inherit=self.inherit),
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def _port_was_taken(self) -> bool:
        exited = self.proc is not None and self.proc.poll() is not None
        return exited and "address already in use" in self.stderr_path.read_text(errors="replace")

    def _check_running(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            raise AssertionError(f"{self.command} exited {self.proc.returncode}:\n{self.tail()}")

    def answers(self, path: str) -> bool:
        """Whether GET `path` answers 200 now (False while nothing listens)."""
        self._check_running()
        try:
            answered = requests.get(f"{self.url}{path}", timeout=2).status_code == 200
        except requests.ConnectionError:
            return False
        self.listening = True
        return answered

    def healthy(self) -> bool:
        return self.answers("/healthz")

    def wait_serving(self) -> None:
        """Until /livez answers (uvicorn listens and has its signal handlers). The Slack socket
        and the Feishu long connection answer before that: a SIGTERM sent earlier kills the
        process without its shutdown."""
        wait_for(lambda: self.answers("/livez"), START_SECONDS, f"{self.command} listening")

    def health(self) -> tuple[int, dict[str, Any]]:
        response = requests.get(f"{self.url}/healthz", timeout=30)
        return response.status_code, response.json()

    def status(self) -> tuple[int, str, list[str]]:
        """/healthz: HTTP status, `status` field and its reasons."""
        code, body = self.health()
        return code, str(body["status"]), list(body.get("reasons") or [])

    def log(self) -> str:
        """Everything every start of this process wrote."""
        text = ""
        for run in range(1, self.runs + 1):
            path = self._log_path(run)
            if path.exists():
                text += path.read_text(encoding="utf-8", errors="replace")
        return text

    def tail(self) -> str:
        return self.log()[-3000:]

    def count(self, message: str) -> int:
        """How many log lines carry `message` (JSON logs: the message field)."""
        return self.log().count(f'"message": "{message}"')

    def metric(self, name: str, repo: str) -> float | None:
        """The value of /metrics family `name` for `repo`, or None when not there."""
        text = requests.get(f"{self.url}/metrics", timeout=30).text
        # a repository GitHub has not yet called public is labelled by its opaque id
        labels = (repo, opaque_repo(repo))
        for line in text.splitlines():
            if any(line.startswith(f'{name}{{repo="{label}"}} ') for label in labels):
                return float(line.rsplit(" ", 1)[1])
        return None

    def kill(self) -> None:
        """SIGKILL: no shutdown hook, no final write."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=STOP_SECONDS)

    def stop(self) -> int | None:
        """SIGTERM once listening; the exit code, or None when it had to be killed."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        if not self.listening:
            # exited meanwhile, or never listened: terminate what is there
            with contextlib.suppress(AssertionError):
                self.wait_serving()
        if self.proc.poll() is not None:
            return self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def wait_exit(self, seconds: float = START_SECONDS) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout=seconds)
