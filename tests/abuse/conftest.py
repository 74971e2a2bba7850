"""The service as an attacker meets it: the real web app (uvicorn on 127.0.0.1) with the real
Slack endpoint (slack-bolt) and Feishu endpoint mounted, a real SQLite store of real verl
digests, the real pipeline posting to FakeSlack and FakeFeishu, and every log line the service
would write (the production redacting handler, at DEBUG) captured for secret checks."""

from __future__ import annotations

import functools
import io
import json
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import requests

from service.commands.answer import EngineContext
from service.core.digest import build_digest
from service.core.models import CollectedPeriod, Period
from service.core.profile import load_profile
from service.feishu.events import build_feishu_endpoint
from service.feishu.sender import FeishuSender
from service.observe.logs import build_handler
from service.pipeline import jobs
from service.render import links
from service.runtime.web import build_web_app
from service.slack.app import build_slack_app, build_slack_endpoint
from service.slack.sender import SlackSender, build_web_client
from service.store.repository import Store
from tests.conftest import NOW, WEEKS, load_week
from tests.fakes import feishu_events
from tests.fakes.asgi import run_app
from tests.fakes.feishu import TOKEN_PATH, FakeFeishu, serve_feishu
from tests.fakes.feishu_signing import encrypt_feishu, event_headers
from tests.fakes.signing import sign_slack
from tests.fakes.slack import BOT_TOKEN, FakeSlack, form_body, running_fake_slack
from tests.periods import period
from tests.waiting import wait_for

REPO = "volcengine/verl"
LANG = "en"
BASE_URL = "http://reports.test"
SLACK_SECRET = "slk-signing-7c1e4b9a2f6d8e03"
FEISHU_APP_SECRET = "fsh-app-secret-5d2a9c7e1b"
FEISHU_TOKEN = "fsh-verify-token-8e3f1a"
FEISHU_ENCRYPT_KEY = "fsh-encrypt-key-2b7d4c"
SECRETS = (SLACK_SECRET, BOT_TOKEN, FEISHU_APP_SECRET, FEISHU_TOKEN, FEISHU_ENCRYPT_KEY)
SLACK_ADMIN = "UADMIN"
FEISHU_ADMIN = "ou_admin"
USER = "UPLAIN"
FEISHU_USER = "ou_reader"
SEEDED = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")
BOT = "ou_bot"
HTTP_OK = 200
JOIN_SECONDS = 30.0


@functools.lru_cache(maxsize=8)
def seeded_digest(label: str) -> Any:
    week = load_week(label)
    return build_digest(week, load_profile(REPO), language=LANG, now=NOW)


class Spawned:
    """The Feishu endpoint's `spawn` seam: each piece of work after the HTTP answer runs in a
    daemon thread as in production, and is kept so that a test can join it."""

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def __call__(self, work: Callable[[], None]) -> None:
        thread = threading.Thread(target=work, name="feishu-event", daemon=True)
        with self._lock:
            self.threads.append(thread)
        thread.start()

    def join(self) -> int:
        """Wait for every piece of work spawned so far to end; how many there were."""
        with self._lock:
            threads = list(self.threads)
        for thread in threads:
            thread.join(JOIN_SECONDS)
            assert not thread.is_alive(), "Feishu work still running"
        return len(threads)


class Observed:
    """The command observer both chat endpoints report to (the metrics seam): the answer kind
    of each command once it has been answered."""

    def __init__(self) -> None:
        self.kinds: dict[str, list[str]] = {"slack": [], "feishu": []}
        self._lock = threading.Lock()

    def __call__(self, platform: str, kind: str, _seconds: float) -> None:
        with self._lock:
            self.kinds[platform].append(kind)


@dataclass
class Service:
    """Everything one abuse test talks to, and what it looks at afterwards."""

    url: str
    store: Store
    slack: FakeSlack
    feishu: FakeFeishu
    pipeline: jobs.Pipeline
    log: io.StringIO
    weeks: dict[str, CollectedPeriod] = field(default_factory=dict)
    responses: list[requests.Response] = field(default_factory=list)
    spawned: Spawned = field(default_factory=Spawned)
    observed: Observed = field(default_factory=Observed)
    commands_sent: int = 0

    def settle(self) -> None:
        """Join the work the service does after its HTTP answers: every slash command sent
        with `command` has been answered to its end (a denied or refused one has nothing
        after its answer), and every Feishu thread has ended."""
        wait_for(
            lambda: len(self.observed.kinds["slack"]) >= self.commands_sent,
            JOIN_SECONDS,
            "every slash command answered",
        )
        self.spawned.join()

    # --- Slack -----------------------------------------------------------------------------

    def slack_post(
        self,
        body: bytes,
        *,
        secret: str = SLACK_SECRET,
        timestamp: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> requests.Response:
        sent = sign_slack(body, secret, timestamp)
        sent.update(headers or {})
        return self.keep(
            requests.post(f"{self.url}/slack/events", data=body, headers=sent, timeout=10)
        )

    def command_body(
        self, text: str, *, user: str = USER, response_url: str | None = None
    ) -> bytes:
        return form_body(
            {
                "token": "deprecated",
                "team_id": "T0001",
                "channel_id": "C1",
                "channel_name": "general",
                "user_id": user,
                "user_name": "someone",
                "command": "/verl-week",
                "text": text,
                "api_app_id": "A0001",
                "response_url": response_url or self.slack.response_url(),
                "trigger_id": "1.2.3",
            }
        )

    def command(self, text: str, *, user: str = USER) -> requests.Response:
        """A signed slash command; `settle` waits for its listener to report its answer."""
        response = self.slack_post(self.command_body(text, user=user))
        if response.status_code == HTTP_OK:
            self.commands_sent += 1
        return response

    # --- Feishu ----------------------------------------------------------------------------

    def feishu_post(
        self, payload: dict[str, Any], *, signing_key: str | None = FEISHU_ENCRYPT_KEY
    ) -> requests.Response:
        body = encrypt_feishu(payload, FEISHU_ENCRYPT_KEY)
        headers = {"Content-Type": "application/json"}
        if signing_key is not None:
            headers = event_headers(body, signing_key)
        return self.keep(
            requests.post(f"{self.url}/feishu/events", data=body, headers=headers, timeout=10)
        )

    def keep(self, response: requests.Response) -> requests.Response:
        self.responses.append(response)
        return response

    def replies_to(self, message_id: str) -> str:
        wait_for(lambda: bool(self.feishu.replies(message_id)))
        return json.dumps([m.card for m in self.feishu.replies(message_id)], ensure_ascii=False)


def said(response: requests.Response) -> str:
    """A JSON answer as readable text (no \\u escapes)."""
    return json.dumps(response.json(), ensure_ascii=False)


def feishu_message(
    text: str, *, sender: str = FEISHU_USER, token: str = FEISHU_TOKEN, chat_type: str = "group"
) -> dict[str, Any]:
    return feishu_events.message_event(
        f"@_user_1 {text}", token=token, sender=sender, chat_type=chat_type
    )


def feishu_action(
    action: str, operator: str, message_id: str, week: str = "2026-W04"
) -> dict[str, Any]:
    return feishu_events.action_event(action, operator, message_id, token=FEISHU_TOKEN, week=week)


def recorded_or_empty(
    weeks: dict[str, CollectedPeriod],
) -> Callable[[str, Period], CollectedPeriod]:
    """The collector: a week the test put in `weeks`, else the recorded verl week, else empty."""

    def collect(repo: str, window: Period) -> CollectedPeriod:
        if window.label in weeks:
            return weeks[window.label]
        if (WEEKS / f"{window.label}.json").exists():
            return load_week(window.label)
        return CollectedPeriod(repo=repo, window=window, prs=[], source="sample")

    return collect


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    """The production handler (JSON lines, redaction) on the root logger, at DEBUG."""
    stream = io.StringIO()
    handler = build_handler("json", stream)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield stream
    root.removeHandler(handler)
    root.setLevel(old_level)


@pytest.fixture
def service(tmp_path: Path, log_stream: io.StringIO) -> Iterator[Service]:
    store = Store.open(f"sqlite:///{tmp_path}/abuse.db")
    for label in SEEDED:
        store.save_digest(seeded_digest(label))
    with running_fake_slack() as slack, serve_feishu(app_secret=FEISHU_APP_SECRET) as feishu:
        weeks: dict[str, CollectedPeriod] = {}
        spawned, observed = Spawned(), Observed()
        slack_sender = SlackSender(
            build_web_client(BOT_TOKEN, slack.api_url), public_base_url=BASE_URL, language=LANG
        )
        feishu_sender = FeishuSender(base_url=feishu.url, app_id=feishu.app_id,
                                     app_secret=FEISHU_APP_SECRET, public_base_url=BASE_URL,
                                     language=LANG)  # fmt: skip
        pipeline = jobs.Pipeline(
            store=store,
            collect=recorded_or_empty(weeks),
            profile_for=load_profile,
            repos=[REPO],
            language=LANG,
            timezone="Asia/Shanghai",
            public_base_url=BASE_URL,
            clock=lambda: NOW + timedelta(hours=1),  # a rebuild changes generated_at
            senders={"slack": slack_sender, "feishu": feishu_sender},
            destinations_for=lambda *_: ["slack:C1", "feishu:oc_group1"],
        )
        engine = EngineContext(
            reader=store,
            repos=[REPO],
            language=LANG,
            timezone="Asia/Shanghai",
            clock=lambda: NOW,
            admins=frozenset({SLACK_ADMIN, FEISHU_ADMIN}),
            subscriptions=store,
            report_url=functools.partial(links.report_url, BASE_URL),
        )

        def rebuild(repo: str, week: Period, requested_by: str) -> jobs.RunResult:
            return jobs.regenerate(pipeline, repo, week, requested_by=requested_by)

        bolt = build_slack_app(
            client=build_web_client(BOT_TOKEN, slack.api_url),
            signing_secret=SLACK_SECRET,
            engine=engine,
            regenerate=rebuild,
            language=LANG,
            observe=observed,
        )
        feishu_endpoint = build_feishu_endpoint(
            events=store,
            api=feishu_sender.api,
            engine=engine,
            verification_token=FEISHU_TOKEN,
            encrypt_key=FEISHU_ENCRYPT_KEY,
            bot_open_id=BOT,
            regenerate=lambda repo, week, *, requested_by: rebuild(repo, week, requested_by),
            spawn=spawned,
            observe=observed,
        )
        app = build_web_app(
            store=store,
            endpoints={
                "/slack/events": build_slack_endpoint(bolt),
                "/feishu/events": feishu_endpoint,
            },
            language=LANG,
        )
        with run_app(app) as url:
            running = Service(
                url,
                store,
                slack,
                feishu,
                pipeline,
                log_stream,
                weeks,
                spawned=spawned,
                observed=observed,
            )
            yield running
            running.spawned.join()  # no reply thread outlives the fakes
        assert leaked_secrets(running) == []
    store.engine.dispose()


def leaked_secrets(service: Service) -> list[str]:
    """Secrets found in any response we got, any log line, or any body the fakes received
    (except the token request, whose body is the app secret by design)."""
    places = [("log", service.log.getvalue())]
    for response in service.responses:
        places.append((f"response {response.url}", response.text + str(dict(response.headers))))
    for rec in [*service.slack.api.requests, *service.feishu.api.requests]:
        if rec.path != TOKEN_PATH:
            places.append((f"request {rec.path}", rec.body.decode("utf-8", "replace")))
    return [f"{secret[:6]}… in {where}" for where, text in places for secret in SECRETS
            if secret in text]  # fmt: skip


@dataclass(frozen=True)
class Snapshot:
    """What a request must not change: stored digests, deliveries, subscriptions, runs."""

    digests: tuple[tuple[str, str, str], ...]
    deliveries: tuple[tuple[str, str | None], ...]
    subscriptions: tuple[tuple[str, str], ...]
    last_run: tuple[int, str, str, str] | None


def snapshot(store: Store) -> Snapshot:
    digests = []
    deliveries = []
    for entry in store.list_reports():
        digest = store.get_digest(entry.repo, period(entry.period), entry.language)
        stamp = digest.generated_at.isoformat() if digest else "-"
        digests.append((entry.period, entry.language, stamp))
        deliveries += [
            (d.destination, d.message_id) for d in store.list_deliveries(REPO, period(entry.period))
        ]
    last = store.last_run()
    return Snapshot(
        digests=tuple(sorted(digests)),
        deliveries=tuple(sorted(deliveries, key=str)),
        subscriptions=tuple(sorted(store.subscriptions(REPO))),
        last_run=(last.id, last.period, last.trigger, last.outcome) if last else None,
    )
