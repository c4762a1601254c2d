"""verify_webhook on deliveries signed here: the whsec_ secret form, several signatures, bad inputs."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import datetime, timezone

from extract_service_client import verify_webhook
from extract_service_client._errors import retry_after_seconds

BODY = b'{"event":"job.completed"}'
NOW = 1_800_000_000


def signed(key: bytes, msg_id: str = "msg_1", timestamp: int = NOW) -> dict[str, str]:
    mac = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + BODY, hashlib.sha256).digest()
    return {
        "Webhook-Id": msg_id,
        "Webhook-Timestamp": str(timestamp),
        "Webhook-Signature": f"v1,{base64.b64encode(b'other').decode()} v1,{base64.b64encode(mac).decode()}",
    }


def test_whsec_secrets_are_keyed_by_their_decoded_bytes() -> None:
    key = b"0123456789abcdef0123456789abcdef"
    secret = "whsec_" + base64.b64encode(key).decode()
    assert verify_webhook(BODY, signed(key), secret, now=lambda: NOW) is True
    assert verify_webhook(BODY, signed(secret.encode()), secret, now=lambda: NOW) is False
    assert verify_webhook(BODY, signed(key, timestamp=NOW - 301), secret, now=lambda: NOW) is False
    assert verify_webhook(BODY, signed(key), "whsec_not base64!", now=lambda: NOW) is False
    assert verify_webhook(BODY, {}, secret) is False


def test_the_legacy_signature_needs_the_opt_in_and_a_recent_body() -> None:
    secret = "legacy-secret"
    stamp = datetime.fromtimestamp(NOW - 60, tz=timezone.utc).isoformat(timespec="milliseconds")
    body = json.dumps({"event": "job.completed", "timestamp": stamp.replace("+00:00", "Z")}).encode()
    legacy = {"X-Service-Signature": hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()}
    assert verify_webhook(body, legacy, secret, now=lambda: NOW) is False
    assert verify_webhook(body, legacy, secret, allow_legacy_signature=True, now=lambda: NOW) is True
    late = NOW + 900
    assert verify_webhook(body, legacy, secret, allow_legacy_signature=True, now=lambda: late) is False
    assert (
        verify_webhook(body, legacy, secret, allow_legacy_signature=True, legacy_max_age_seconds=3600, now=lambda: late)
        is True
    )
    assert verify_webhook(BODY, {"X-Service-Signature": "00"}, secret, allow_legacy_signature=True) is False


def test_timestamps_out_of_range_are_refused() -> None:
    key = b"k" * 32
    assert verify_webhook(BODY, signed(key, timestamp=NOW + 301), key.decode(), now=lambda: NOW) is False
    huge = {**signed(key), "Webhook-Timestamp": "9" * 400}
    assert verify_webhook(BODY, huge, key.decode(), now=lambda: NOW) is False
    assert verify_webhook(BODY, signed(key), key.decode(), tolerance_seconds=-1, now=lambda: NOW) is False


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds("Thu, 01 Jan 2026 00:00:10 GMT", now=1767225600.0) == 10.0
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None
