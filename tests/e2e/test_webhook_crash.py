"""The Feishu custom-bot webhook when `verl-week post` is killed (SIGKILL) after the card reached
the group and before the delivery was recorded: the webhook has no message id and no dedupe, so
a re-run does not send it again on its own. The delivery is `unknown`, logged, and the run says
so (exit 1); `post --force` sends it again. Also a webhook that takes the card and never
answers in time (read timeout): unknown too, never retried into a second card."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from service import wiring
from service.delivery.outbox import UNCONFIRMED_REASON
from service.feishu.webhook import WebhookSender
from service.pipeline.jobs import run_week
from service.pipeline.recorded import load_sample
from service.settings import Settings
from service.store.repository import Store
from tests.fakes.feishu import FakeFeishu, serve_feishu
from tests.periods import period
from tests.processes import run_service, spawn
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

REPO = "volcengine/verl"
DESTINATION = "feishu-webhook:default"
# the webhook's deliveries stay logged under its name before the rename (nothing posted twice)
RECORDED = "webhook:feishu"
RUN_SECONDS = 120


@pytest.fixture
def feishu() -> Iterator[FakeFeishu]:
    with serve_feishu() as fake:
        yield fake


def post_env(feishu: FakeFeishu, folder: Path) -> dict[str, str]:
    return {
        "DATABASE_URL": f"sqlite:///{folder}/verl-week.db",
        "FEISHU_WEBHOOK_URL": feishu.hook_url,
        "DIGEST_LANGUAGE": "en",
    }


def post(env: dict[str, str], folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    args = ["post", "--sample", "--to", DESTINATION, *extra]
    return run_service(args, folder, env, timeout=RUN_SECONDS)


def sample_week() -> str:
    return load_sample(datetime.now(UTC)).window.label


def test_kill_between_send_and_record_is_unknown_until_force(
    feishu: FakeFeishu, tmp_path: Path
) -> None:
    env = post_env(feishu, tmp_path)
    gate = feishu.hold_hook_answers()
    command = ["post", "--sample", "--to", DESTINATION]
    proc = spawn(command, tmp_path, env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert feishu.hook_received.wait(RUN_SECONDS), proc.communicate(timeout=5)
        proc.send_signal(signal.SIGKILL)  # the card is in the group; its record is not written
        proc.wait(timeout=RUN_SECONDS)
    finally:
        gate.set()
        feishu.hook_gate = None
    assert len(feishu.hook_cards) == 1
    store = Store.open(env["DATABASE_URL"])
    left = store.get_delivery(REPO, period(sample_week()), RECORDED)
    assert left is not None
    assert (left.status, left.attempts) == ("intent", 1)

    for _ in range(2):  # a restart, then another: neither sends the card again
        again = post(env, tmp_path)
        assert again.returncode == 1, again.stderr
        assert again.stdout == f"{DESTINATION}\tunknown\t{UNCONFIRMED_REASON}\n"
        assert "delivery outcome unknown: not resent" in again.stderr
        assert "Traceback" not in again.stderr
        assert len(feishu.hook_cards) == 1
    unknown = store.get_delivery(REPO, period(sample_week()), RECORDED)
    assert unknown is not None
    assert (unknown.status, unknown.error) == ("unknown", UNCONFIRMED_REASON)

    forced = post(env, tmp_path, "--force")
    assert forced.returncode == 0, forced.stderr
    assert forced.stdout.startswith(f"{DESTINATION}\tposted\twebhook-")
    assert len(feishu.hook_cards) == 2
    sent = store.get_delivery(REPO, period(sample_week()), RECORDED)
    assert sent is not None
    assert sent.status == "sent"
    assert post(env, tmp_path).stdout.startswith(f"{DESTINATION}\tskipped\t")
    assert len(feishu.hook_cards) == 2


def test_a_webhook_that_never_answers_is_unknown_not_resent(
    feishu: FakeFeishu, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(feishu_webhook_url=feishu.hook_url)
    pipeline = wiring.build_pipeline(settings, sample=True)
    pipeline.senders["feishu-webhook"] = WebhookSender(
        url=feishu.hook_url, secret=None, public_base_url="http://r.test", language="zh", timeout=1
    )
    window = load_sample(datetime.now(UTC)).window
    gate = feishu.hold_hook_answers()
    try:
        first = run_week(pipeline, REPO, window, trigger="cli", destinations=[DESTINATION])
    finally:
        gate.set()
        feishu.hook_gate = None
    assert [(o.action, o.error) for o in first.outcomes] == [
        (
            "unknown",
            "Feishu webhook took the card and did not answer in time: it may have been posted",
        )
    ]
    assert first.outcome == "partial"
    wait_for(lambda: len(feishu.hook_cards) == 1, what="the held card")
    second = run_week(pipeline, REPO, window, trigger="cli", destinations=[DESTINATION])
    assert [o.action for o in second.outcomes] == ["unknown"]
    assert len(feishu.hook_cards) == 1
