"""Prometheus metrics of one process, served at GET /metrics (text format 0.0.4).

Each Metrics object has a registry of its own (no global state: tests and several apps in one
process don't mix). The pipeline, the GitHub client and the chat adapters are handed its
methods as plain callables, so none of them knows about Prometheus. The registry and its series
are made on first use: a command-line run that reports nothing never imports prometheus-client.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service import __version__, operator_text

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

    from service.observe.connection_health import ConnectionHealth

logger = logging.getLogger(__name__)
PREFIX = "verl_week"
# a slash command must be acknowledged within Slack's 3 s: the buckets bracket that
COMMAND_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
RUN_BUCKETS = (1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)
MODEL_BUCKETS = (0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
# web pages and webhooks: fast answers expected, a slow report page stands out
HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# the route label of a request that no route matched (a 404): one series, never the raw path
UNMATCHED_ROUTE = "unmatched"
# what generate_latest writes, as prometheus-client's own servers label it (every Prometheus
# reads it; newer client releases call their default content type 1.0.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


OPAQUE_HEX_DIGITS = 10


def opaque_repo(repo: str) -> str:
    """A private repository's label on /metrics: stable across processes and restarts (a
    hash of its name), saying nothing of the name."""
    digest = hashlib.sha256(repo.encode()).hexdigest()[:OPAQUE_HEX_DIGITS]
    return f"repo-{digest}"


def trigger_kind(trigger: str) -> str:
    """`regenerate:U123` → `regenerate`: a label never carries a user id (bounded series)."""
    return trigger.partition(":")[0] or "unknown"


class Metrics:
    """Counters, gauges and histograms of the service; `exposition()` is the /metrics body."""

    registry: CollectorRegistry
    build_info: Gauge
    http_requests: Counter
    http_seconds: Histogram
    runs: Counter
    run_seconds: Histogram
    last_run: Gauge
    last_attempt: Gauge
    last_success: Gauge
    digests_owed: Gauge
    posts: Counter
    github_requests: Counter
    github_remaining: Gauge
    commands: Counter
    command_seconds: Histogram
    model_calls: Counter
    model_seconds: Histogram
    model_tokens: Counter
    connection_up: Gauge
    connection_last_event: Gauge

    def __init__(self, repo_label: Callable[[str], str] | None = None) -> None:
        # how a repository is named in labels (wiring: opaque for a private one)
        self.repo_label = repo_label or (lambda repo: repo)
        # called before each scrape, to read what lives in the database (runs, weeks owed)
        self.before_scrape: list[Callable[[], None]] = []
        self._registering = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        """The registry or a series, asked for the first time: every one is made now."""
        if name.startswith("_"):
            raise AttributeError(name)
        with self._registering:
            if "registry" not in vars(self):
                self._register()
        return object.__getattribute__(self, name)

    def _register(self) -> None:
        from prometheus_client import (
            CollectorRegistry,
            Counter,
            Gauge,
            Histogram,
            PlatformCollector,
            ProcessCollector,
            disable_created_metrics,
        )

        # no `<name>_created` series beside counters and histograms: a process start time per
        # label set doubles the series and no dashboard reads it (process_start_time_seconds does)
        disable: Callable[[], None] = disable_created_metrics  # unannotated in the library
        disable()
        r = CollectorRegistry(auto_describe=True)
        # process_* (CPU, memory, open files) and python_info, as prometheus-client's own
        # default registry has them; process_* read /proc, so they exist on Linux only
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        self.build_info = Gauge(
            f"{PREFIX}_build_info", "Always 1; the running build's version as a label.",
            ["version"], registry=r,
        )  # fmt: skip
        self.build_info.labels(__version__).set(1)
        self.http_requests = Counter(
            f"{PREFIX}_http_requests", "HTTP requests answered, by method, route template "
            "and status.", ["method", "route", "status"], registry=r,
        )  # fmt: skip
        self.http_seconds = Histogram(
            f"{PREFIX}_http_request_duration_seconds", "Time to answer an HTTP request, by "
            "method and route template.", ["method", "route"], buckets=HTTP_BUCKETS, registry=r,
        )  # fmt: skip
        self.runs = Counter(
            f"{PREFIX}_runs", "Weekly runs by repo, trigger and outcome.",
            ["repo", "trigger", "outcome"], registry=r,
        )  # fmt: skip
        self.run_seconds = Histogram(
            f"{PREFIX}_run_duration_seconds", "Duration of weekly runs.",
            ["repo"], buckets=RUN_BUCKETS, registry=r,
        )  # fmt: skip
        self.last_run = Gauge(
            f"{PREFIX}_last_run_timestamp_seconds", "When the last run of a repo finished.",
            ["repo"], registry=r,
        )  # fmt: skip
        self.last_attempt = Gauge(
            f"{PREFIX}_last_attempt_timestamp_seconds",
            "When the last weekly run of a repo (any outcome) ended, or started if it still "
            "runs; read from the database at scrape.", ["repo"], registry=r,
        )  # fmt: skip
        self.last_success = Gauge(
            f"{PREFIX}_last_success_timestamp_seconds",
            "When the last successful (ok or partial) weekly run of a repo ended; read from the "
            "database at scrape.", ["repo"], registry=r,
        )  # fmt: skip
        # a count, not a duration: named without a time unit (promtool reads `_weeks` as one)
        self.digests_owed = Gauge(
            f"{PREFIX}_digests_owed",
            "Weekly digests whose run is due and not done yet, per repo (a count).",
            ["repo"], registry=r,
        )  # fmt: skip
        self.posts = Counter(
            f"{PREFIX}_posts", "Cards delivered by platform and action (posted, updated, "
            "reconciled, skipped, failed).", ["platform", "action"], registry=r,
        )  # fmt: skip
        self.github_requests = Counter(
            f"{PREFIX}_github_requests", "HTTP requests sent to GitHub, by API and status.",
            ["api", "status"], registry=r,
        )  # fmt: skip
        self.github_remaining = Gauge(
            f"{PREFIX}_github_rate_limit_remaining",
            "Requests GitHub still allows in the current window (x-ratelimit-remaining).",
            ["resource"], registry=r,
        )  # fmt: skip
        self.commands = Counter(
            f"{PREFIX}_commands", "Chat commands answered, by platform and answer kind.",
            ["platform", "kind"], registry=r,
        )  # fmt: skip
        self.command_seconds = Histogram(
            f"{PREFIX}_command_duration_seconds", "Time to answer a chat command.",
            ["platform"], buckets=COMMAND_BUCKETS, registry=r,
        )  # fmt: skip
        self.model_calls = Counter(
            f"{PREFIX}_model_calls", "Calls to the configured language model, by outcome.",
            ["outcome"], registry=r,
        )  # fmt: skip
        self.model_seconds = Histogram(
            f"{PREFIX}_model_call_duration_seconds", "Duration of language model calls.",
            buckets=MODEL_BUCKETS, registry=r,
        )  # fmt: skip
        self.model_tokens = Counter(
            f"{PREFIX}_model_tokens", "Tokens the language model's calls used, by kind.",
            ["kind"], registry=r,
        )  # fmt: skip
        self.connection_up = Gauge(
            f"{PREFIX}_connection_up", "1 while a chat connection this replica opened (Slack "
            "Socket Mode, Feishu long connection) is up, 0 while it is down.", ["platform"],
            registry=r,
        )  # fmt: skip
        self.connection_last_event = Gauge(
            f"{PREFIX}_connection_last_event_timestamp_seconds", "When a chat connection last "
            "brought something in (an event, a frame).", ["platform"], registry=r,
        )  # fmt: skip
        self.registry = r  # last: its presence says every series is made

    def run_finished(
        self, repo: str, trigger: str, outcome: str, seconds: float, finished_at: float
    ) -> None:
        label = self.repo_label(repo)
        self.runs.labels(label, trigger_kind(trigger), outcome).inc()
        self.run_seconds.labels(label).observe(seconds)
        self.last_run.labels(label).set(finished_at)

    def runs_read(
        self, repo: str, last_attempt: float | None, last_success: float | None, owed: int
    ) -> None:
        """A repo's runs as the database has them (every process's runs, not only ours)."""
        label = self.repo_label(repo)
        # a repository first seen as not-yet-public changes label once GitHub says it is
        # public: the series under its other label would stand stale forever
        stale = repo if label != repo else opaque_repo(repo)
        for gauge in (self.last_attempt, self.last_success, self.digests_owed):
            with contextlib.suppress(KeyError):
                gauge.remove(stale)
        if last_attempt is not None:
            self.last_attempt.labels(label).set(last_attempt)
        if last_success is not None:
            self.last_success.labels(label).set(last_success)
        self.digests_owed.labels(label).set(owed)

    def http_answered(self, method: str, route: str, status: int, seconds: float) -> None:
        self.http_requests.labels(method, route, str(status)).inc()
        self.http_seconds.labels(method, route).observe(seconds)

    def delivered(self, platform: str, action: str) -> None:
        self.posts.labels(platform, action).inc()

    def github_response(
        self, api: str, status: int, remaining: str | None, resource: str | None
    ) -> None:
        self.github_requests.labels(api, str(status)).inc()
        if remaining is not None and remaining.isdigit():
            self.github_remaining.labels(resource or api).set(int(remaining))

    def command_answered(self, platform: str, kind: str, seconds: float) -> None:
        self.commands.labels(platform, kind).inc()
        self.command_seconds.labels(platform).observe(seconds)

    def model_call(
        self, outcome: str, seconds: float, prompt_tokens: int = 0, completion_tokens: int = 0
    ) -> None:
        """For the optional language model: one call, how it ended (ok; invalid: not JSON for
        the schema; failed: no answer in time, or refused) and the tokens it used."""
        self.model_calls.labels(outcome).inc()
        self.model_seconds.observe(seconds)
        self.model_tokens.labels("prompt").inc(prompt_tokens)
        self.model_tokens.labels("completion").inc(completion_tokens)

    def connections_read(self, connections: list[ConnectionHealth]) -> None:
        """Each chat connection's state, read before a scrape."""
        for connection in connections:
            self.connection_up.labels(connection.platform).set(1 if connection.up else 0)
            if connection.last_event_at is not None:
                self.connection_last_event.labels(connection.platform).set(connection.last_event_at)

    def exposition(self) -> bytes:
        for refresh in self.before_scrape:
            try:
                refresh()
            except Exception:  # a scrape still answers: the gauges keep their last values
                logger.warning(operator_text.LOG_METRICS_REFRESH_FAILED, exc_info=True)
        from prometheus_client import generate_latest

        return generate_latest(self.registry)
