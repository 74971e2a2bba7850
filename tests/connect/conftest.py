"""`verl-week serve --no-scheduler` with no public URL: a real subprocess
(tests.processes.ServiceProcess) started with the README's own settings and nothing else from
this environment, against FakeSlack + its Socket Mode websocket and FakeFeishu + its long
connection on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.processes import ServiceProcess

Launch = Callable[[dict[str, str]], ServiceProcess]


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Launch]:
    """Start `serve` in tmp_path with exactly these settings (not waiting for it to listen: a
    refused token stops it first); every one started is stopped at the test's end."""
    started: list[ServiceProcess] = []

    def start(settings: dict[str, str]) -> ServiceProcess:
        serve = ServiceProcess(settings, tmp_path, options=("--no-scheduler",), inherit=False)
        started.append(serve)
        return serve.start(wait=False)

    yield start
    for serve in started:
        serve.stop()
