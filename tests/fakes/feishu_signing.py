"""Feishu's signing and encryption written out again, independently of service/feishu/crypto.py,
so a bug there is not mirrored here (platform-facts §3.2, §3.5)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import time
from typing import Any

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def sign_feishu_webhook(timestamp: str, secret: str) -> str:
    """base64(HMAC-SHA256(key=timestamp + "\\n" + secret, message=b""))."""
    string_to_sign = f"{timestamp}\n{secret}"
    digest = hmac.new(string_to_sign.encode("utf-8"), digestmod=hashlib.sha256).digest()
    return base64.b64encode(digest).decode("utf-8")


def sign_feishu_event(timestamp: str, nonce: str, encrypt_key: str, body: bytes) -> str:
    """hex(sha256(timestamp + nonce + encrypt_key + body)): the X-Lark-Signature header."""
    hasher = hashlib.sha256()
    hasher.update((timestamp + nonce + encrypt_key).encode("utf-8"))
    hasher.update(body)
    return hasher.hexdigest()


def encrypt_feishu(payload: dict[str, Any], encrypt_key: str) -> bytes:
    """The body Feishu sends with an Encrypt Key: {"encrypt": base64(iv + AES-256-CBC(json))}."""
    key = hashlib.sha256(encrypt_key.encode("utf-8")).digest()
    iv = os.urandom(16)
    padder = padding.PKCS7(128).padder()
    data = padder.update(json.dumps(payload).encode("utf-8")) + padder.finalize()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    blob = base64.b64encode(iv + encryptor.update(data) + encryptor.finalize()).decode()
    return json.dumps({"encrypt": blob}).encode("utf-8")


def event_headers(
    body: bytes, encrypt_key: str, *, timestamp: str | None = None, nonce: str = "n0nce"
) -> dict[str, str]:
    """The three X-Lark-Request-* headers Feishu sends with a signed event (signed now unless
    `timestamp` says otherwise)."""
    timestamp = str(int(time.time())) if timestamp is None else timestamp
    return {
        "X-Lark-Request-Timestamp": timestamp,
        "X-Lark-Request-Nonce": nonce,
        "X-Lark-Signature": sign_feishu_event(timestamp, nonce, encrypt_key, body),
        "Content-Type": "application/json; charset=utf-8",
    }
