"""/metrics read back with prometheus-client's parser: build info, HTTP requests by route template
and status with a latency histogram, process metrics, and names after Prometheus conventions."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from service import __version__
from service.core.digest import build_digest
from service.core.profile import load_profile
from service.observe.metrics import Metrics
from service.runtime.web import build_web_app
from service.store.repository import Store
from tests.conftest import NOW, load_week
from tests.fakes.asgi import run_app

REPO = "volcengine/verl"
WEEK = "2026-W03"
NAME_RE = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
LABEL_RE = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
OUR_PREFIXES = ("verl_week_", "process_", "python_")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    store = Store.open(f"sqlite:///{tmp_path}/verl-week.db")
    store.save_digest(build_digest(load_week(WEEK), load_profile(REPO), language="en", now=NOW))
    with run_app(build_web_app(store=store, metrics=Metrics(), language="en")) as url:
        yield url


def families(url: str) -> dict[str, tuple[str, list[Sample]]]:
    response = requests.get(f"{url}/metrics", timeout=10)
    assert response.status_code == 200
    return {
        family.name: (family.type, list(family.samples))
        for family in text_string_to_metric_families(response.text)
    }


def test_http_requests_are_counted_by_route_template_and_status(served: str) -> None:
    paths = (f"/reports/{REPO}/{WEEK}", f"/reports/{REPO}/{WEEK}", "/livez", "/no/such/page")
    statuses = [requests.get(served + path, timeout=10).status_code for path in paths]
    assert statuses == [200, 200, 200, 404]
    found = families(served)

    kind, samples = found["verl_week_http_requests"]
    assert kind == "counter"
    counts = {
        (s.labels["method"], s.labels["route"], s.labels["status"]): s.value
        for s in samples
        if s.name == "verl_week_http_requests_total"
    }
    assert counts[("GET", "/reports/{owner}/{repo}/{week}", "200")] == 2
    assert counts[("GET", "/livez", "200")] == 1
    assert counts[("GET", "unmatched", "404")] == 1
    # the raw path of a request never becomes a label value (unbounded, user-controlled)
    assert not any(REPO in route or "no/such" in route for _m, route, _s in counts)

    kind, samples = found["verl_week_http_request_duration_seconds"]
    assert kind == "histogram"
    report = {"method": "GET", "route": "/reports/{owner}/{repo}/{week}"}
    count = [s for s in samples if s.name.endswith("_count") and s.labels == report]
    assert count
    assert count[0].value == 2
    inf = [s for s in samples if s.name.endswith("_bucket") and s.labels.get("le") == "+Inf"]
    assert any(s.labels["route"] == report["route"] and s.value == 2 for s in inf)


def test_build_info_and_process_metrics(served: str) -> None:
    found = families(served)
    kind, samples = found["verl_week_build_info"]
    assert kind == "gauge"
    assert [(s.labels, s.value) for s in samples] == [({"version": __version__}, 1.0)]
    assert found["python_info"][0] == "gauge"
    kind, samples = found["process_cpu_seconds"]
    assert kind == "counter"
    assert samples[0].value > 0
    assert found["process_resident_memory_bytes"][1][0].value > 0
    assert found["process_open_fds"][1][0].value > 0


def test_names_types_and_labels_follow_prometheus_conventions(served: str) -> None:
    requests.get(f"{served}/livez", timeout=10)
    found = families(served)
    for name, (kind, samples) in found.items():
        assert NAME_RE.match(name), name
        assert name.startswith(OUR_PREFIXES), name
        assert kind in ("counter", "gauge", "histogram", "info"), (name, kind)
        for sample in samples:
            assert all(LABEL_RE.match(label) for label in sample.labels), sample
            assert not any(label.startswith("__") for label in sample.labels), sample
        if kind == "counter":
            # the parser strips _total from the family name; every sample carries it back
            assert {s.name for s in samples} <= {f"{name}_total"}, name  # no _created series
        if kind == "histogram":
            assert name.endswith("_seconds"), name  # a duration in the base unit
            assert not [s for s in samples if s.name.endswith("_created")], name
        # a time or a size is in base units: seconds and bytes, never ms or megabytes; a name
        # part that is a time unit (promtool's reading) only for a duration in seconds
        units = r"_(milliseconds|ms|minutes|hours|days|weeks|months|years|kilobytes|megabytes)(_|$)"
        assert not re.search(units, name.removeprefix("verl_week")), name
        assert not name.endswith("_total"), name  # a gauge named like a counter
