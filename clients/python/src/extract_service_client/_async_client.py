"""AsyncClient: the same client as Client for asyncio or trio (anyio), over httpx.AsyncClient."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any, Literal, overload

import anyio
import httpx
from httpx_sse import EventSource

from . import models
from ._base import (
    API,
    DEFAULT_TIMEOUT,
    TERMINAL_STATUSES,
    ClientOptions,
    checked,
    extract_answer,
    job_path,
    json_body,
    results_answer,
    results_params,
    start_headers,
)
from ._errors import problem_from_response
from ._sse import StreamEvent, StreamState


class AsyncClient:
    """An asynchronous client of the service at ``base_url`` (its origin, e.g. ``http://127.0.0.1:8080``).

    429 and 503 answers are retried after their Retry-After (up to ``retries`` times, when it is at most
    ``max_retry_delay`` seconds), and so are network errors of GETs and of POSTs that carry an Idempotency-Key
    (every POST that starts a job does). Error answers raise :class:`ProblemError`.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        retries: int = 3,
        max_retry_delay: float = 30.0,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._options = ClientOptions(
            base_url, api_key, retries=retries, max_retry_delay=max_retry_delay, headers=headers
        )
        self._http = httpx.AsyncClient(
            base_url=self._options.base_url, headers=self._options.headers, timeout=timeout, transport=transport
        )

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _send(self, request: httpx.Request, *, stream: bool = False) -> httpx.Response:
        policy = self._options.retry
        attempt = 0
        while True:
            try:
                response = await self._http.send(request, stream=stream)
            except httpx.TransportError:
                wait = policy.after_error(request, attempt)
                if wait is None:
                    raise
            else:
                wait = policy.after_response(response, attempt)
                if wait is None:
                    return response
                await response.aclose()
            await anyio.sleep(wait)
            attempt += 1

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Any route (``client.request("GET", "/api/v1/keys")``), retried as above; a non-2xx raises."""
        response = await self._send(self._http.build_request(method, path, **kwargs))
        return checked(response)

    async def extract(
        self, body: models.ExtractRequestInput | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> models.ExtractResponse | models.AcceptedJob:
        """Extracts from one page: the result (200), or the job (202) when it takes longer than the service
        waits. A failed page raises :class:`ProblemError` with ``job_id`` and ``error_category``."""
        response = await self.request(
            "POST", f"{API}/extract", json=json_body(body), headers=start_headers(idempotency_key)
        )
        return extract_answer(response)

    async def crawl(
        self, body: models.CrawlRequestInput | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> models.CrawlResponse:
        """Starts a crawl and answers at once with the job (job_id, status, status_url, queue_position)."""
        response = await self.request(
            "POST", f"{API}/crawl", json=json_body(body), headers=start_headers(idempotency_key)
        )
        return models.CrawlResponse.model_validate(response.json())

    async def job(self, job_id: str) -> models.Job:
        return models.Job.model_validate((await self.request("GET", job_path(job_id))).json())

    async def wait_for_job(self, job_id: str, *, timeout: float = 600.0, interval: float = 1.0) -> models.Job:
        """Polls the job until it is completed, failed or cancelled; TimeoutError after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            job = await self.job(job_id)
            if job.status in TERMINAL_STATUSES:
                return job
            if time.monotonic() >= deadline:
                raise TimeoutError(f"job {job_id} still {job.status} after {timeout} s")
            await anyio.sleep(min(interval, max(0.0, deadline - time.monotonic())))

    @overload
    async def results(
        self,
        job_id: str,
        *,
        format: Literal["json"] = "json",
        merge: Literal[False] = False,
        include_provenance: bool = False,
    ) -> list[models.JobResult]: ...
    @overload
    async def results(
        self, job_id: str, *, format: Literal["json"] = "json", merge: Literal[True], include_provenance: bool = False
    ) -> list[Any]: ...
    @overload
    async def results(
        self, job_id: str, *, format: Literal["jsonl", "yaml"], merge: bool = False, include_provenance: bool = False
    ) -> str: ...
    async def results(
        self,
        job_id: str,
        *,
        format: Literal["json", "jsonl", "yaml"] = "json",
        merge: bool = False,
        include_provenance: bool = False,
    ) -> Any:
        """The job's page results: json as models (merge=True: one de-duplicated list of records), jsonl and
        yaml as the text the service sent."""
        params = results_params(format, merge, include_provenance)
        response = await self.request("GET", job_path(job_id, "/results"), params=params)
        return results_answer(response, format, merge)

    async def cancel(self, job_id: str) -> models.Job:
        """Cancels a pending or running job (409 ProblemError when it already ended)."""
        return models.Job.model_validate((await self.request("POST", job_path(job_id, "/cancel"))).json())

    async def retry(self, job_id: str) -> models.Job:
        """Re-runs the failed pages of a finished job as a new job (409 ProblemError when none failed)."""
        return models.Job.model_validate((await self.request("POST", job_path(job_id, "/retry"))).json())

    @asynccontextmanager
    async def _open_stream(self, job_id: str, state: StreamState) -> AsyncIterator[httpx.Response]:
        request = self._http.build_request("GET", job_path(job_id, "/stream"), headers=state.headers())
        response = await self._send(request, stream=True)
        try:
            if not response.is_success:
                await response.aread()
                raise problem_from_response(response)
            yield response
        finally:
            await response.aclose()

    async def stream(
        self,
        job_id: str,
        *,
        last_event_id: int | None = None,
        max_reconnects: int = 5,
        max_reconnect_delay: float = 5.0,
    ) -> AsyncIterator[StreamEvent]:
        """The job's events until ``complete``; a dropped connection is resumed with Last-Event-ID.

        ``last_event_id`` starts after an event of an earlier stream. After ``max_reconnects`` drops in a row
        without a new event, :class:`StreamEndedEarly` is raised. To stop early and close the connection at
        once, iterate inside ``async with contextlib.aclosing(client.stream(job_id)) as events``.
        """
        state = StreamState(last_event_id, max_reconnects, max_reconnect_delay)
        while True:
            error: httpx.TransportError | None = None
            try:
                async with self._open_stream(job_id, state) as response:
                    async for sse in EventSource(response).aiter_sse():
                        event = state.accept(sse)
                        yield event
                        if event.event == "complete":
                            return
            except httpx.TransportError as err:  # the connection dropped: resume after the last event
                error = err
            await anyio.sleep(state.dropped(error))

