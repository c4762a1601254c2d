"""What the sync and the async client share: options, request bodies, and reading answers into models."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter

from . import models
from ._errors import problem_from_response
from ._retry import RetryPolicy

ResultFormat = Literal["json", "jsonl", "yaml"]
TERMINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})
API = "/api/v1"
#: A waited extract can take the service's EXTRACT_WAIT_SECONDS (120 s by default); a stream sends a heartbeat
#: every 15 s.
DEFAULT_TIMEOUT = httpx.Timeout(150.0, connect=10.0)
_RESULTS: TypeAdapter[list[models.JobResult]] = TypeAdapter(models.JobResultList)
_MERGED: TypeAdapter[list[Any]] = TypeAdapter(models.MergedResults)


def job_path(job_id: str, suffix: str = "") -> str:
    return f"{API}/jobs/{quote(job_id, safe='')}{suffix}"


def json_body(body: BaseModel | Mapping[str, Any]) -> Any:
    """A request model as the JSON the service reads (only the fields that were set), or a mapping as is."""
    if isinstance(body, BaseModel):
        return body.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return dict(body)


def start_headers(idempotency_key: str | None) -> dict[str, str]:
    """A POST that starts a job is safe to repeat with its key: the same key returns the same job."""
    return {"idempotency-key": idempotency_key or str(uuid.uuid4())}


def results_params(fmt: ResultFormat, merge: bool, include_provenance: bool) -> dict[str, str]:
    return {
        "format": fmt,
        "merge": "true" if merge else "false",
        "include_provenance": "true" if include_provenance else "false",
    }


def checked(response: httpx.Response) -> httpx.Response:
    """The response of a 2xx; any other answer (its body read) as a ProblemError."""
    if response.is_success:
        return response
    raise problem_from_response(response)


def extract_answer(response: httpx.Response) -> models.ExtractResponse | models.AcceptedJob:
    if response.status_code == 202:
        return models.AcceptedJob.model_validate(response.json())
    return models.ExtractResponse.model_validate(response.json())


def results_answer(response: httpx.Response, fmt: ResultFormat, merge: bool) -> Any:
    if fmt != "json":
        return response.text
    if merge:
        return _MERGED.validate_json(response.content)
    return _RESULTS.validate_json(response.content)


class ClientOptions:
    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        retries: int,
        max_retry_delay: float,
        headers: Mapping[str, str] | None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = RetryPolicy(retries=retries, max_retry_delay=max_retry_delay)
        # The interface's shapes (API version v1), whatever version the key is pinned to.
        self.headers = {
            **(headers or {}),
            "authorization": f"Bearer {api_key}",
            "x-api-version": "v1",
        }
