"""The synchronous Client against the real stack (see conftest.py for what the proxy in front of it does)."""

from __future__ import annotations

import json
import re
import time
import uuid

import pytest
from conftest import SCHEMA, Receiver, crawl_body

from extract_service_client import Client, ProblemError, models, verify_webhook


def test_extract_returns_data_and_the_same_key_gives_the_same_job(client: Client, site: str, proxy_seen) -> None:
    page = client.extract({"url": f"{site}/a", "schema": SCHEMA})
    assert isinstance(page, models.ExtractResponse), page
    assert sorted(page.data) == ["price", "title"]
    assert page.data["price"] == 12.5
    sent = [s for s in proxy_seen() if s["path"] == "/api/v1/extract"][-1]
    assert re.fullmatch(r"[0-9a-f-]{36}", sent["idempotency-key"])

    key = f"python-client-{uuid.uuid4()}"
    request = models.ExtractRequestInput(url=f"{site}/b", schema=SCHEMA)  # a typed request works as well
    first = client.extract(request, idempotency_key=key)
    again = client.extract(request, idempotency_key=key)
    assert first.job_id == again.job_id


def test_crawl_returns_the_job_wait_for_job_and_results_in_every_format(client: Client, site: str) -> None:
    started = client.crawl(crawl_body(site))
    assert isinstance(started, models.CrawlResponse) and started.job_id
    job = client.wait_for_job(started.job_id, timeout=60, interval=0.2)
    assert (job.status, job.page_count) == ("completed", 4)

    results = client.results(job.id)
    assert len(results) == 4
    assert all(isinstance(r, models.JobResult) and r.status == "completed" for r in results)
    assert all(r.url.startswith(site) for r in results)
    jsonl = client.results(job.id, format="jsonl")
    assert [json.loads(line)["id"] for line in jsonl.strip().split("\n")] == [r.id for r in results]
    assert client.results(job.id, format="yaml").startswith("- id: ")
    merged = client.results(job.id, merge=True)
    assert isinstance(merged, list) and merged
    with pytest.raises(ProblemError) as ended:
        client.cancel(job.id)
    assert ended.value.status == 409


def test_stream_resumes_with_last_event_id_after_a_dropped_connection(
    client: Client, direct: Client, site: str, proxy_seen
) -> None:
    job_id = client.crawl(crawl_body(site)).job_id
    live = list(client.stream(job_id))  # read while the crawl runs; the proxy drops it after 3 events
    whole = list(direct.stream(job_id))
    assert whole[-1].event == "complete"
    assert len(whole) > 4
    assert [e.model_dump() for e in live] == [e.model_dump() for e in whole]
    opened = [s for s in proxy_seen() if s["path"] == f"/api/v1/jobs/{job_id}/stream"]
    assert len(opened) >= 2, "the client reconnected"
    assert opened[0]["last-event-id"] is None
    assert int(opened[1]["last-event-id"]) in [e.id for e in whole]

    # A consumer that stops, and later goes on from the last event it handled.
    head = []
    for event in client.stream(job_id):
        head.append(event)
        if len(head) == 2:
            break
    tail = list(client.stream(job_id, last_event_id=head[-1].id))
    assert [e.id for e in head + tail] == [e.id for e in whole]


def test_a_429_is_retried_after_its_retry_after_with_the_same_idempotency_key(
    env: dict[str, str], site: str, proxy_seen
) -> None:
    with Client(env["EXTRACT_SERVICE_URL"], env["EXTRACT_SERVICE_API_KEY"], headers={"x-test-fault": "429-once"}) as c:
        page = c.extract({"url": f"{site}/c", "schema": SCHEMA})
    assert isinstance(page, models.ExtractResponse)
    posts = [s for s in proxy_seen() if s["x-test-fault"] == "429-once"]
    assert len(posts) == 2
    assert posts[1]["at"] - posts[0]["at"] >= 1000, "waited the Retry-After second (the backoff would be 0.5 s)"
    assert posts[0]["idempotency-key"] == posts[1]["idempotency-key"]


def test_a_retry_after_beyond_the_bound_is_the_429_problem(env: dict[str, str], proxy_seen) -> None:
    # The service's own rate limit (1 a minute for this tenant): its Retry-After is far beyond 0.1 s.
    with Client(env["EXTRACT_SERVICE_URL"], env["EXTRACT_SERVICE_LIMITED_API_KEY"], max_retry_delay=0.1) as c:
        with pytest.raises(ProblemError):
            c.job("job_nonexistent")  # a 404, or already the 429
        before = len(proxy_seen())
        with pytest.raises(ProblemError) as limited:
            c.job("job_nonexistent")
    assert limited.value.status == 429
    assert limited.value.retry_after and limited.value.retry_after > 0
    assert len(proxy_seen()) - before == 1, "no retry against a Retry-After beyond the bound"


def test_a_problem_json_answer_is_a_problem_error(client: Client, site: str) -> None:
    with pytest.raises(ProblemError) as invalid:
        client.extract({"url": "not a url", "schema": SCHEMA})
    err = invalid.value
    assert err.status == 422
    assert re.match(r"^https?:|^/", err.type)
    assert err.title and err.detail
    assert any(e["location"] == "body.url" for e in err.errors), err.errors

    with pytest.raises(ProblemError) as failed:
        client.extract({"url": f"{site}/missing", "schema": SCHEMA})
    assert failed.value.job_id and failed.value.error_category, vars(failed.value)
    again = client.retry(failed.value.job_id)
    assert again.id != failed.value.job_id


def test_verify_webhook_accepts_a_real_delivery_and_rejects_a_forgery(
    client: Client, site: str, receiver: Receiver
) -> None:
    secret = "python-webhook-secret"
    client.extract({"url": f"{site}/a", "schema": SCHEMA, "webhook": {"url": f"{receiver.url}/hook", "secret": secret}})
    delivery = receiver.wait_for("/hook")
    body, headers = delivery.body, delivery.headers
    assert verify_webhook(body, headers, secret) is True
    assert verify_webhook(body.decode(), headers, secret) is True
    assert verify_webhook(body.replace(b"}", b',"x":1}', 1), headers, secret) is False
    assert verify_webhook(body, headers, "another-secret") is False
    stale = {**headers, "webhook-timestamp": str(int(time.time()) - 3600)}
    assert verify_webhook(body, stale, secret) is False
    an_hour_on = time.time() + 3600  # the delivery replayed an hour later
    assert verify_webhook(body, headers, secret, now=lambda: an_hour_on) is False
    assert verify_webhook(body, headers, secret, tolerance_seconds=7200, now=lambda: an_hour_on) is True
    # The Standard Webhooks headers stripped: the body-only signature passes only when asked for.
    legacy = {"X-Service-Signature": headers["x-service-signature"]}
    assert verify_webhook(body, legacy, secret) is False
    assert verify_webhook(body, legacy, secret, allow_legacy_signature=True) is True
    assert verify_webhook(body + b" ", legacy, secret, allow_legacy_signature=True) is False
    assert verify_webhook(body, legacy, secret, allow_legacy_signature=True, now=lambda: an_hour_on) is False
    partly = {k: v for k, v in headers.items() if k.lower() != "webhook-signature"}
    assert verify_webhook(body, partly, secret, allow_legacy_signature=True) is False
