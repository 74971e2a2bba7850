"""SlackSender against FakeSlack on loopback: the posted payload and its limits, chat.update in
place, not_in_channel → join + retry, 429 + Retry-After, errors named, crash reconciliation and
no second post from a new process on the same database."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import cast

import pytest

from service.delivery.outbox import DeliveryLog, deliver, idempotency_key
from service.errors import PlatformRejectedError, RateLimitError, UnreachableError
from service.slack.sender import METADATA_EVENT, SlackSender
from service.store.repository import Store
from tests.commands.builders import real_digest
from tests.fakes.asgi import free_port
from tests.fakes.slack import FakeSlack
from tests.periods import period
from tests.slack.conftest import BASE_URL, REPO, make_sender

DIGEST = real_digest("2026-W04")
KEY = idempotency_key(REPO, period("2026-W04"), "slack:C1")


def test_post_sends_the_card_with_metadata_and_within_limits(
    slack: FakeSlack, sender: SlackSender
) -> None:
    message_id = sender.post("C1", DIGEST, idempotency_key=KEY)
    [call] = slack.calls("chat.postMessage")
    sent = call.json()
    assert sent["channel"] == "C1"
    assert sent["metadata"] == {
        "event_type": METADATA_EVENT,
        "event_payload": {"key": KEY, "repo": REPO, "week": "2026-W04"},
    }
    assert sent["text"].startswith("verl-week volcengine/verl 2026-W04")
    assert sent["blocks"][0]["type"] == "header"
    report = f"{BASE_URL}/reports/{REPO}/2026-W04"
    assert report in str(sent["blocks"])
    assert slack.violations == []
    assert message_id == f"C1:{slack.messages('C1')[0]['ts']}"
    assert "xoxb" not in str(sent)


def test_update_edits_the_posted_card_in_place(slack: FakeSlack, sender: SlackSender) -> None:
    first = sender.post("C1", DIGEST, idempotency_key=KEY)
    other = real_digest("2026-W03")
    assert sender.update("C1", first, other) == first
    [message] = slack.messages("C1")
    assert message["edits"] == 1
    assert "2026-W03" in message["text"]
    assert slack.calls("chat.update")[0].json()["ts"] == first.split(":")[1]
    assert message["metadata"]["event_payload"]["key"] == KEY  # kept through the update


def test_not_in_channel_joins_and_retries_once(slack: FakeSlack, sender: SlackSender) -> None:
    slack.add_channel("C2", member=False)
    message_id = sender.post("C2", DIGEST, idempotency_key=KEY)
    assert [c.json()["channel"] for c in slack.calls("conversations.join")] == ["C2"]
    assert len(slack.calls("chat.postMessage")) == 2
    assert message_id.startswith("C2:")
    assert len(slack.messages("C2")) == 1


def test_private_channel_not_joinable_is_reported(slack: FakeSlack, sender: SlackSender) -> None:
    slack.add_channel("G1", member=False, public=False)
    with pytest.raises(PlatformRejectedError) as info:
        sender.post("G1", DIGEST, idempotency_key=KEY)
    assert info.value.code == "method_not_supported_for_channel_type"
    assert "G1" in info.value.message


def test_rate_limit_waits_retry_after_then_succeeds(slack: FakeSlack, sender: SlackSender) -> None:
    slack.rate_limit(retry_after=1)
    started = time.monotonic()
    sender.post("C1", DIGEST, idempotency_key=KEY)
    assert time.monotonic() - started >= 1.0
    assert len(slack.calls("chat.postMessage")) == 2
    assert len(slack.messages("C1")) == 1


def test_rate_limit_beyond_the_retries_is_a_rate_limit_error(slack: FakeSlack) -> None:
    sender = make_sender(slack, max_retries=0)
    slack.rate_limit(retry_after=7)
    with pytest.raises(RateLimitError) as info:
        sender.post("C1", DIGEST, idempotency_key=KEY)
    assert info.value.reset_at is not None


@pytest.mark.parametrize("code", ["invalid_blocks", "channel_is_archived", "msg_too_long"])
def test_other_errors_name_the_channel_and_the_code(
    slack: FakeSlack, sender: SlackSender, code: str
) -> None:
    slack.fail_method("chat.postMessage", code)
    with pytest.raises(PlatformRejectedError) as info:
        sender.post("C1", DIGEST, idempotency_key=KEY)
    assert info.value.code == code
    assert info.value.message == f"Slack rejected the post to C1: {code}"


def test_unknown_channel(sender: SlackSender) -> None:
    with pytest.raises(PlatformRejectedError) as info:
        sender.post("C404", DIGEST, idempotency_key=KEY)
    assert info.value.code == "channel_not_found"


def test_unreachable_slack_is_an_unreachable_error() -> None:
    from service.slack.sender import build_web_client

    client = build_web_client("xoxb-test-token", f"http://127.0.0.1:{free_port()}/api/", timeout=2)
    sender = SlackSender(client, public_base_url=BASE_URL, language="en")
    with pytest.raises(UnreachableError):
        sender.post("C1", DIGEST, idempotency_key=KEY)


def test_find_posted_reads_the_metadata_key(slack: FakeSlack, sender: SlackSender) -> None:
    assert sender.find_posted("C1", KEY) is None
    posted = sender.post("C1", DIGEST, idempotency_key=KEY)
    sender.post("C1", real_digest("2026-W03"), idempotency_key="other-key")
    assert sender.find_posted("C1", KEY) == posted
    history = slack.calls("conversations.history")[-1]
    assert b"include_all_metadata=1" in history.body
    assert b"limit=50" in history.body
    slack.add_channel("C3", member=False)
    assert sender.find_posted("C3", KEY) is None  # can't read: post will be tried


@pytest.mark.process
def test_crash_between_post_and_record_is_reconciled(
    slack: FakeSlack, sender: SlackSender, store: Store
) -> None:
    log = cast(DeliveryLog, store)
    record = store.record_intent(REPO, period("2026-W04"), "slack:C1", KEY)
    store.mark_attempt(record.id)
    sender.post("C1", DIGEST, idempotency_key=KEY)  # the process died right after this
    outcomes = deliver(DIGEST, ["slack:C1"], {"slack": sender}, log)
    assert [o.action for o in outcomes] == ["reconciled"]
    assert len(slack.calls("chat.postMessage")) == 1
    assert store.get_delivery(REPO, period("2026-W04"), "slack:C1").status == "sent"  # type: ignore[union-attr]


SECOND_PROCESS = textwrap.dedent(
    """
    import json, sys
    from service.core.models import Digest, Period
    from service.delivery.outbox import deliver
    from service.slack.sender import SlackSender, build_web_client
    from service.store.repository import Store

    db_url, api_url = sys.argv[1], sys.argv[2]
    store = Store.open(db_url)
    digest = store.get_digest("volcengine/verl", Period.of_label("2026-W04", "UTC"), "en")
    sender = SlackSender(build_web_client("xoxb-test-token", api_url),
                         public_base_url="http://reports.test", language="en")
    outcomes = deliver(digest, ["slack:C1"], {"slack": sender}, store)
    print(json.dumps([[o.action, o.message_id] for o in outcomes]))
    """
)


def run_second_process(db_url: str, slack: FakeSlack) -> list[list[str]]:
    import json

    done = subprocess.run(
        [sys.executable, "-c", SECOND_PROCESS, db_url, slack.api_url],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.process
def test_second_post_from_a_new_process_posts_nothing(
    slack: FakeSlack, store: Store, db_url: str
) -> None:
    first = run_second_process(db_url, slack)
    assert first[0][0] == "posted"
    assert len(slack.calls("chat.postMessage")) == 1
    second = run_second_process(db_url, slack)
    assert second == [["skipped", first[0][1]]]
    assert len(slack.calls("chat.postMessage")) == 1
    assert len(slack.messages("C1")) == 1
