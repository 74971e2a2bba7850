"""`verl-week doctor`'s edges (issue 31): a model key the endpoint refuses when it lists no
models, no destination at all, a Feishu read-only check Feishu refuses (said as such, with no
log line amid the findings), and a callback URL said to work only once it answered."""

from __future__ import annotations

import pytest

from tests.channels.conftest import Wired
from tests.channels.test_doctor import doctor, problems
from tests.fakes._server import Recorded, Reply
from tests.fakes.openai import API_KEY, MODEL, serve_model

pytestmark = pytest.mark.process

DENIED_CHAT = "oc_denied"
IN_CHAT = f"/open-apis/im/v1/chats/{DENIED_CHAT}/members/is_in_chat"
SCOPE_REFUSAL = "Access denied. One of the following scopes is required: [im:chat:readonly]"


def test_a_refused_key_on_an_endpoint_that_lists_no_models(wired: Wired) -> None:
    with serve_model() as bare:  # chat completions only: GET /models is a 404
        env = {"LLM_BASE_URL": bare.url, "LLM_MODEL": MODEL}
        code, lines = doctor(wired, **env, LLM_API_KEY="sk-not-the-key-4242")
        assert code == 1
        [found] = problems(lines)
        assert found.startswith("model: ")
        assert found.endswith("refused LLM_API_KEY (HTTP 401)")
        code, lines = doctor(wired, **env, LLM_API_KEY=API_KEY)
        assert code == 0
        [(status, message)] = lines["model"]
        assert status == "warning"
        assert "lists no models (GET /models: 404)" in message
        # the key was asked with a request no server completes: no token spent
        assert [call.json()["messages"] for call in bare.calls] == [[], []]


def test_no_destination_at_all_is_said(wired: Wired) -> None:
    code, lines = doctor(wired, SLACK_CHANNELS="", FEISHU_CHAT_IDS="", FEISHU_WEBHOOK_URL="")
    assert lines["cards"] == [
        (
            "warning",
            "no destination configured: the weekly cards go nowhere; set SLACK_CHANNELS, "
            "FEISHU_CHAT_IDS or FEISHU_WEBHOOK_URL, or subscribe a channel (/verl-week subscribe)",
        )
    ]
    assert code == 0  # commands still work
    code, lines = doctor(wired)
    assert "cards" not in lines


def test_a_refused_read_only_check_is_no_rejected_message_and_logs_nothing(wired: Wired) -> None:
    def refuse(_rec: Recorded) -> Reply:
        return 400, {}, {"code": 99991672, "msg": SCOPE_REFUSAL}

    wired.feishu.api.route("GET", IN_CHAT, refuse)
    done = wired.cli("doctor", FEISHU_CHAT_IDS=f"oc_group1,{DENIED_CHAT}")
    assert done.returncode == 1
    assert (
        f"problem  feishu    chat {DENIED_CHAT}: Feishu refused the request: {SCOPE_REFUSAL} "
        "(code 99991672)"
    ) in done.stdout.splitlines()
    assert "rejected the message" not in done.stdout
    assert done.stderr == ""  # no log line amid (or before) the findings


def test_a_callback_url_is_not_said_to_work_unless_it_answered(wired: Wired) -> None:
    _code, lines = doctor(wired)  # PUBLIC_BASE_URL http://reports.test: nothing answers there
    [events] = [m for m in lines["feishu"] if "/feishu/events" in m[1]]
    assert events[0] == "warning"
    assert events[1].startswith(
        "http://reports.test/feishu/events did not answer the URL check from this machine ("
    )
    assert "arrive" not in events[1]
