"""The web app shortens the GIL switch interval while it serves (issue 30: `/livez` and the
commands waited behind the worker threads' 5 ms turns) and puts it back, however apps overlap."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import pytest

from service.runtime.switching import SERVING_SWITCH_INTERVAL_S, quick_turns


@pytest.fixture(autouse=True)
def _interval_kept() -> Iterator[None]:
    before = sys.getswitchinterval()
    yield
    sys.setswitchinterval(before)


def test_serving_shortens_the_interval_and_restores_it() -> None:
    sys.setswitchinterval(0.005)
    with quick_turns():
        assert sys.getswitchinterval() == pytest.approx(SERVING_SWITCH_INTERVAL_S)
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_a_shorter_interval_is_kept() -> None:
    sys.setswitchinterval(SERVING_SWITCH_INTERVAL_S / 2)
    with quick_turns():
        assert sys.getswitchinterval() == pytest.approx(SERVING_SWITCH_INTERVAL_S / 2)


def test_overlapping_apps_restore_it_when_the_last_one_stops() -> None:
    sys.setswitchinterval(0.005)
    first_in, second_done = threading.Event(), threading.Event()
    seen: list[float] = []

    def first() -> None:
        with quick_turns():
            first_in.set()
            second_done.wait(5)
            seen.append(sys.getswitchinterval())  # after the second one stopped

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(5)
    with quick_turns():
        pass
    second_done.set()
    thread.join(5)
    assert seen == [pytest.approx(SERVING_SWITCH_INTERVAL_S)]
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_the_web_app_serves_with_the_short_interval() -> None:
    from starlette.testclient import TestClient

    from service.runtime.web import build_ops_app
    from service.store.repository import Store

    sys.setswitchinterval(0.005)
    app = build_ops_app(store=Store.open("sqlite://"), scheduler_alive=None)
    with TestClient(app) as client:  # the lifespan runs
        assert client.get("/livez").status_code == 200
        assert sys.getswitchinterval() == pytest.approx(SERVING_SWITCH_INTERVAL_S)
    assert sys.getswitchinterval() == pytest.approx(0.005)
