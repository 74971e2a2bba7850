"""Feishu's signatures and event encryption (platform-facts §3.2, §3.5), with `cryptography`.

- custom-bot sign: base64(HMAC-SHA256(key=f"{timestamp}\\n{secret}", msg=b"")) — the combined
  string is the KEY and the message is empty;
- event signature: hex(sha256(timestamp + nonce + encrypt_key + raw_body)) — plain SHA-256;
- event encryption: AES-256-CBC, key = sha256(encrypt_key), body = base64(IV ‖ ciphertext),
  PKCS#7 padding.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from service.errors import AuthRefusedError

AES_BLOCK_BYTES = 16
AES_BLOCK_BITS = 128


def webhook_sign(timestamp: int | str, secret: str) -> str:
    """The `sign` field of a signed custom-bot request."""
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()


def event_signature(timestamp: str, nonce: str, encrypt_key: str, body: bytes) -> str:
    """The expected `X-Lark-Signature` of an event request."""
    return hashlib.sha256((timestamp + nonce + encrypt_key).encode() + body).hexdigest()


def signature_matches(
    signature: str, *, timestamp: str, nonce: str, encrypt_key: str, body: bytes
) -> bool:
    """Constant-time comparison of a received signature with the expected one."""
    expected = event_signature(timestamp, nonce, encrypt_key, body)
    return hmac.compare_digest(expected.encode(), signature.encode())


def hmac_equal(left: str, right: str) -> bool:
    """Constant-time string comparison (verification tokens)."""
    return hmac.compare_digest(left.encode(), right.encode())


def _aes_key(encrypt_key: str) -> bytes:
    return hashlib.sha256(encrypt_key.encode()).digest()


def decrypt_event(encrypted: str, encrypt_key: str) -> bytes:
    """The plaintext JSON bytes of an `{"encrypt": ...}` body; AuthRefusedError if it can't be."""
    try:
        data = base64.b64decode(encrypted, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise AuthRefusedError("event body is not valid base64") from exc
    if len(data) < 2 * AES_BLOCK_BYTES or len(data) % AES_BLOCK_BYTES:
        raise AuthRefusedError("event ciphertext has a bad length")
    iv, ciphertext = data[:AES_BLOCK_BYTES], data[AES_BLOCK_BYTES:]
    decryptor = Cipher(algorithms.AES(_aes_key(encrypt_key)), modes.CBC(iv)).decryptor()
    padded = decryptor.update(ciphertext) + decryptor.finalize()
    unpadder = padding.PKCS7(AES_BLOCK_BITS).unpadder()
    try:
        return unpadder.update(padded) + unpadder.finalize()
    except ValueError as exc:
        raise AuthRefusedError("event could not be decrypted with the encrypt key") from exc


def encrypt_event(plaintext: bytes, encrypt_key: str, iv: bytes) -> str:
    """The inverse of decrypt_event (what Feishu does); `iv` is 16 random bytes."""
    padder = padding.PKCS7(AES_BLOCK_BITS).padder()
    padded = padder.update(plaintext) + padder.finalize()
    encryptor = Cipher(algorithms.AES(_aes_key(encrypt_key)), modes.CBC(iv)).encryptor()
    return base64.b64encode(iv + encryptor.update(padded) + encryptor.finalize()).decode()
