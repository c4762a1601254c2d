"""Client: the service's API over httpx (synchronous), with the helpers people need."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal, overload

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


class Client:
    """A client of the service at ``base_url`` (its origin, e.g. ``http://127.0.0.1:8080``).

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
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._options = ClientOptions(
            base_url, api_key, retries=retries, max_retry_delay=max_retry_delay, headers=headers
        )
        self._http = httpx.Client(
            base_url=self._options.base_url, headers=self._options.headers, timeout=timeout, transport=transport
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _send(self, request: httpx.Request, *, stream: bool = False) -> httpx.Response:
        policy = self._options.retry
        attempt = 0
        while True:
            try:
                response = self._http.send(request, stream=stream)
            except httpx.TransportError:
                wait = policy.after_error(request, attempt)
                if wait is None:
                    raise
            else:
                wait = policy.after_response(response, attempt)
                if wait is None:
                    return response
                response.close()
            time.sleep(wait)
            attempt += 1

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Any route (``client.request("GET", "/api/v1/keys")``), retried as above; a non-2xx raises."""
        response = self._send(self._http.build_request(method, path, **kwargs))
        return checked(response)

    def extract(
        self, body: models.ExtractRequestInput | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> models.ExtractResponse | models.AcceptedJob:
        """Extracts from one page: the result (200), or the job (202) when it takes longer than the service
        waits. A failed page raises :class:`ProblemError` with ``job_id`` and ``error_category``."""
        response = self.request(
            "POST", f"{API}/extract", json=json_body(body), headers=start_headers(idempotency_key)
        )
        return extract_answer(response)

    def crawl(
        self, body: models.CrawlRequestInput | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> models.CrawlResponse:
        """Starts a crawl and answers at once with the job (job_id, status, status_url, queue_position)."""
        response = self.request(
            "POST", f"{API}/crawl", json=json_body(body), headers=start_headers(idempotency_key)
        )
        return models.CrawlResponse.model_validate(response.json())

    def job(self, job_id: str) -> models.Job:
        return models.Job.model_validate(self.request("GET", job_path(job_id)).json())

    def wait_for_job(self, job_id: str, *, timeout: float = 600.0, interval: float = 1.0) -> models.Job:
        """Polls the job until it is completed, failed or cancelled; TimeoutError after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            job = self.job(job_id)
            if job.status in TERMINAL_STATUSES:
                return job
            if time.monotonic() >= deadline:
                raise TimeoutError(f"job {job_id} still {job.status} after {timeout} s")
            time.sleep(min(interval, max(0.0, deadline - time.monotonic())))

    @overload
    def results(
        self,
        job_id: str,
        *,
        format: Literal["json"] = "json",
        merge: Literal[False] = False,
        include_provenance: bool = False,
    ) -> list[models.JobResult]: ...
    @overload
    def results(
        self, job_id: str, *, format: Literal["json"] = "json", merge: Literal[True], include_provenance: bool = False
    ) -> list[Any]: ...
    @overload
    def results(
        self, job_id: str, *, format: Literal["jsonl", "yaml"], merge: bool = False, include_provenance: bool = False
    ) -> str: ...
    def results(
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
        return results_answer(self.request("GET", job_path(job_id, "/results"), params=params), format, merge)

    def cancel(self, job_id: str) -> models.Job:
        """Cancels a pending or running job (409 ProblemError when it already ended)."""
        return models.Job.model_validate(self.request("POST", job_path(job_id, "/cancel")).json())

    def retry(self, job_id: str) -> models.Job:
        """Re-runs the failed pages of a finished job as a new job (409 ProblemError when none failed)."""
        return models.Job.model_validate(self.request("POST", job_path(job_id, "/retry")).json())

    @contextmanager
    def _open_stream(self, job_id: str, state: StreamState) -> Iterator[httpx.Response]:
        request = self._http.build_request("GET", job_path(job_id, "/stream"), headers=state.headers())
        response = self._send(request, stream=True)
        try:
            if not response.is_success:
                response.read()
                raise problem_from_response(response)
            yield response
        finally:
            response.close()

    def stream(
        self,
        job_id: str,
        *,
        last_event_id: int | None = None,
        max_reconnects: int = 5,
        max_reconnect_delay: float = 5.0,
    ) -> Iterator[StreamEvent]:
        """The job's events until ``complete``; a dropped connection is resumed with Last-Event-ID.

        ``last_event_id`` starts after an event of an earlier stream. After ``max_reconnects`` drops in a row
        without a new event, :class:`StreamEndedEarly` is raised.
        """
        state = StreamState(last_event_id, max_reconnects, max_reconnect_delay)
        while True:
            error: httpx.TransportError | None = None
            try:
                with self._open_stream(job_id, state) as response:
                    for sse in EventSource(response).iter_sse():
                        event = state.accept(sse)
                        yield event
                        if event.event == "complete":
                            return
            except httpx.TransportError as err:  # the connection dropped: resume after the last event
                error = err
            time.sleep(state.dropped(error))

