"""Slack's v0 request signing written out with plain hmac (platform-facts §2.3), independently of
slack_sdk's SignatureVerifier, so a signed test request is what Slack itself would send."""

from __future__ import annotations

import hashlib
import hmac
import time


def slack_signature(body: bytes, secret: str, timestamp: int) -> str:
    """`v0=` + hex(HMAC-SHA256(secret, "v0:{timestamp}:{body}"))."""
    base = b"v0:" + str(timestamp).encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def sign_slack(body: bytes | str, secret: str, timestamp: int | None = None) -> dict[str, str]:
    """The headers Slack sends with a form-encoded request body."""
    raw = body.encode() if isinstance(body, str) else body
    ts = int(time.time()) if timestamp is None else timestamp
    return {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": str(ts),
        "x-slack-signature": slack_signature(raw, secret, ts),
    }
