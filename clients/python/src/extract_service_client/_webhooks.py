"""Checks a webhook delivery's signature, as the service signs it.

Standard Webhooks: ``webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>``, keyed by the secret's
UTF-8 bytes, or for a ``whsec_<base64>`` secret its decoded bytes; a ``webhook-timestamp`` too far from now is
refused, so a captured delivery cannot be replayed later. The legacy ``x-service-signature`` (the lowercase hex
HMAC-SHA256 of the body alone, keyed by the secret's UTF-8 bytes) proves no time: it is checked only when the
caller opts in, and then the body's own signed ``timestamp`` (the event's time) must be recent.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math
import re
import time
from collections.abc import Callable, Mapping
from datetime import datetime

Headers = Mapping[str, str] | Mapping[str, list[str]]

_DIGITS = re.compile(r"[0-9]{1,15}")  # more would overflow a float


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


def _recent(seconds: float, now: float, tolerance: float) -> bool:
    """Whether ``seconds`` is within ``tolerance`` of ``now``, either way (a bad tolerance accepts none)."""
    return math.isfinite(seconds) and tolerance >= 0 and abs(now - seconds) <= tolerance


def _verify_standard(raw: bytes, msg_id: str, timestamp: str, signatures: str, secret: str) -> bool:
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


def _body_timestamp(raw: bytes) -> float:
    """The signed body's own ``timestamp`` (an ISO date) in seconds, NaN when it has none."""
    try:
        value = json.loads(raw).get("timestamp")
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except (ValueError, TypeError, AttributeError):
        return math.nan


def verify_webhook(
    body: bytes | str,
    headers: Headers,
    secret: str,
    *,
    tolerance_seconds: float = 300,
    allow_legacy_signature: bool = False,
    legacy_max_age_seconds: float = 900,
    now: Callable[[], float] = time.time,
) -> bool:
    """True when the delivery was signed with ``secret`` and is recent.

    Pass the raw body exactly as received (the bytes, or their UTF-8 text), not a re-serialised JSON value;
    ``headers`` is any mapping of the request's headers (names in any case). A ``webhook-timestamp`` further
    than ``tolerance_seconds`` from now is refused, against replays. A delivery without the Standard Webhooks
    headers (``webhook-id``, ``webhook-timestamp``, ``webhook-signature``) is refused unless
    ``allow_legacy_signature`` is set: its ``x-service-signature`` covers the body only, so a captured delivery
    passes it again, and only the body's ``timestamp`` (the event's time, the same on every retry) no older than
    ``legacy_max_age_seconds`` (default 900 s: the retries) bounds the replay.
    """
    raw = body.encode() if isinstance(body, str) else bytes(body)
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if msg_id and timestamp and signatures:
        if not _DIGITS.fullmatch(timestamp) or not _recent(int(timestamp), now(), tolerance_seconds):
            return False
        return _verify_standard(raw, msg_id, timestamp, signatures, secret)
    # Some Standard Webhooks headers but not all: stripped on the way, never the legacy form.
    if not allow_legacy_signature or msg_id or timestamp or signatures:
        return False
    legacy = _header(headers, "x-service-signature")
    if not legacy:
        return False
    expected_hex = hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(legacy.lower().encode(), expected_hex.encode()):
        return False
    return _recent(_body_timestamp(raw), now(), legacy_max_age_seconds)
