"""Checks a webhook delivery's signature, as the service signs it.

Standard Webhooks: ``webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>``, keyed by the secret's
UTF-8 bytes, or for a ``whsec_<base64>`` secret its decoded bytes. Older receivers may check
``x-service-signature``: the lowercase hex HMAC-SHA256 of the body keyed by the secret's UTF-8 bytes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from collections.abc import Callable, Mapping


Headers = Mapping[str, str] | Mapping[str, list[str]]


def _header(headers: Headers, name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value[0] if isinstance(value, (list, tuple)) else value
    return None


def _b64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def verify_webhook(
    body: bytes | str,
    headers: Headers,
    secret: str,
    *,
    tolerance_seconds: float = 300,
    now: Callable[[], float] = time.time,
) -> bool:
    """True when the delivery was signed with ``secret``.

    Pass the raw body exactly as received (the bytes, or their UTF-8 text), not a re-serialised JSON value;
    ``headers`` is any mapping of the request's headers (names in any case). A ``webhook-timestamp`` further
    than ``tolerance_seconds`` from now is refused, against replays.
    """
    raw = body.encode() if isinstance(body, str) else bytes(body)
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if msg_id and timestamp and signatures:
        if not timestamp.isdigit() or abs(now() - int(timestamp)) > tolerance_seconds:
            return False
        key = _b64(secret[6:]) if secret.startswith("whsec_") else secret.encode()
        if not key:
            return False
        expected = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + raw, hashlib.sha256).digest()
        for entry in signatures.split(" "):
            version, _, value = entry.partition(",")
            signature = _b64(value) if version == "v1" and value else None
            if signature is not None and hmac.compare_digest(signature, expected):
                return True
        return False
    legacy = _header(headers, "x-service-signature")
    if not legacy:
        return False
    expected_hex = hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
    return hmac.compare_digest(legacy.lower().encode(), expected_hex.encode())
