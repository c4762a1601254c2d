"""The AsyncClient against the real stack: the same helpers, awaited."""

from __future__ import annotations

import json

import pytest
from conftest import SCHEMA, crawl_body

from extract_service_client import AsyncClient, ProblemError, models

pytestmark = pytest.mark.anyio


def _client(env: dict[str, str], **kwargs) -> AsyncClient:
    return AsyncClient(env["EXTRACT_SERVICE_URL"], env["EXTRACT_SERVICE_API_KEY"], **kwargs)


async def test_extract_and_a_503_retried_after_its_retry_after(env: dict[str, str], site: str, proxy_seen) -> None:
    async with _client(env, headers={"x-test-fault": "503-once"}) as client:
        page = await client.extract({"url": f"{site}/b", "schema": SCHEMA})
    assert isinstance(page, models.ExtractResponse)
    assert sorted(page.data) == ["price", "title"]
    posts = [s for s in proxy_seen() if s["x-test-fault"] == "503-once"]
    assert len(posts) == 2 and posts[0]["idempotency-key"] == posts[1]["idempotency-key"]
    assert posts[1]["at"] - posts[0]["at"] >= 1000, "waited the Retry-After second (the backoff would be 0.5 s)"


async def test_crawl_stream_through_a_dropped_connection_wait_and_results(
    env: dict[str, str], site: str, proxy_seen
) -> None:
    async with _client(env) as client:
        job_id = (await client.crawl(crawl_body(site))).job_id
        live = [event async for event in client.stream(job_id)]
        job = await client.wait_for_job(job_id, timeout=60, interval=0.2)
        assert (job.status, job.page_count) == ("completed", 4)
        results = await client.results(job_id)
        jsonl = await client.results(job_id, format="jsonl")
        yaml = await client.results(job_id, format="yaml")
        async with AsyncClient(env["EXTRACT_SERVICE_DIRECT_URL"], env["EXTRACT_SERVICE_API_KEY"]) as direct:
            whole = [event async for event in direct.stream(job_id)]
    assert [e.model_dump() for e in live] == [e.model_dump() for e in whole]
    assert whole[-1].event == "complete"
    opened = [s for s in proxy_seen() if s["path"] == f"/api/v1/jobs/{job_id}/stream"]
    assert len(opened) >= 2 and opened[1]["last-event-id"] is not None
    assert sorted(r.id for r in results) == sorted(json.loads(line)["id"] for line in jsonl.splitlines())
    assert yaml.startswith("- id: ")
    assert {e.data.id for e in whole if e.event == "result"} == {r.id for r in results}


async def test_a_problem_json_answer_is_a_problem_error(env: dict[str, str]) -> None:
    async with _client(env) as client:
        with pytest.raises(ProblemError) as invalid:
            await client.extract({"url": "not a url", "schema": SCHEMA})
        with pytest.raises(ProblemError) as missing:
            await client.job("job_nonexistent")
    assert invalid.value.status == 422
    assert any(e["location"] == "body.url" for e in invalid.value.errors)
    assert missing.value.status == 404 and missing.value.title
