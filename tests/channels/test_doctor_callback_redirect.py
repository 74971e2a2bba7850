"""doctor's Feishu callback check posts the verification token to the callback URL: a redirect
(a proxy sending it elsewhere) is not followed, so the token never reaches another host, and
the URL is not said to work."""

from __future__ import annotations

from service.platforms.feishu_doctor import check_callback
from tests.fakes._server import FakeAPI, Recorded, Reply, serve

TOKEN = "feishu-verification-token-0123"


def test_a_redirecting_callback_keeps_the_token_here() -> None:
    elsewhere = FakeAPI()

    def answer(rec: Recorded) -> Reply:
        return 200, {}, {"challenge": rec.json()["challenge"]}

    elsewhere.route("POST", "/feishu/events", answer)
    with serve(elsewhere):
        proxy = FakeAPI()

        def redirect(_rec: Recorded) -> Reply:
            return 307, {"Location": f"{elsewhere.url}/feishu/events"}, b""

        proxy.route("POST", "/feishu/events", redirect)
        with serve(proxy):
            finding = check_callback(f"{proxy.url}/feishu/events", TOKEN)
    assert elsewhere.requests == []  # the token stayed with the host it was meant for
    assert finding.ok
    assert finding.warning
    assert "HTTP 307" in finding.message
