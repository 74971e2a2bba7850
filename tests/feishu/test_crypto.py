"""Feishu's signatures and AES event encryption against the documented inputs and an
independent implementation (tests/fakes/feishu_signing.py)."""

from __future__ import annotations

import json
import os

import pytest

from service.errors import AuthRefusedError
from service.feishu import crypto
from tests.fakes.feishu_signing import encrypt_feishu, sign_feishu_event, sign_feishu_webhook


def test_webhook_sign_matches_the_documented_example() -> None:
    # add-custom-bot doc: timestamp 1599360473, secret "demo" (platform-facts §3.2, verified).
    assert crypto.webhook_sign(1599360473, "demo") == "l1N0gAcBjdwBvGm1xMjOF0XSyaLRpR7tuO5dHfhAYc8="
    assert crypto.webhook_sign("1599360473", "demo") == sign_feishu_webhook("1599360473", "demo")


def test_event_signature_is_plain_sha256_over_the_raw_body() -> None:
    body = b'{"encrypt":"abc"}'
    expected = sign_feishu_event("1700000000", "nonce", "key", body)
    assert crypto.event_signature("1700000000", "nonce", "key", body) == expected
    assert crypto.signature_matches(
        expected, timestamp="1700000000", nonce="nonce", encrypt_key="key", body=body
    )
    assert not crypto.signature_matches(
        expected, timestamp="1700000000", nonce="nonce", encrypt_key="key", body=body + b" "
    )


def test_decrypts_what_feishu_encrypts() -> None:
    event = {"schema": "2.0", "header": {"event_id": "e1"}, "event": {"text": "风险 <at>"}}
    encrypted = json.loads(encrypt_feishu(event, "encrypt-key"))["encrypt"]
    assert json.loads(crypto.decrypt_event(encrypted, "encrypt-key")) == event


def test_round_trip_of_our_own_encryption() -> None:
    blob = crypto.encrypt_event(b'{"a":1}', "k", os.urandom(16))
    assert crypto.decrypt_event(blob, "k") == b'{"a":1}'


@pytest.mark.parametrize("blob", ["not base64!!", "YWJj", ""])
def test_garbage_is_refused(blob: str) -> None:
    with pytest.raises(AuthRefusedError):
        crypto.decrypt_event(blob, "encrypt-key")


def test_a_wrong_key_is_refused_or_yields_no_event() -> None:
    encrypted = json.loads(encrypt_feishu({"type": "url_verification"}, "right"))["encrypt"]
    try:
        plaintext = crypto.decrypt_event(encrypted, "wrong")
    except AuthRefusedError:
        return
    with pytest.raises(ValueError, match=r"."):  # padding happened to pass: bytes are garbage
        json.loads(plaintext)
