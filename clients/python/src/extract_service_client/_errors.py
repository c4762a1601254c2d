"""Every error answer of the service is an RFC 9457 problem document: one typed exception carries it."""

from __future__ import annotations

import json
from email.utils import parsedate_to_datetime
from time import time
from typing import Any

import httpx


class ProblemError(Exception):
    """A problem+json answer (or any non-2xx answer, read as well as it can be) as an exception."""

    def __init__(
        self,
        *,
        type: str,
        status: int,
        title: str,
        detail: str,
        instance: str = "",
        errors: list[dict[str, Any]] | None = None,
        job_id: str | None = None,
        error_category: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {title}: {detail}")
        self.type = type
        self.status = status
        self.title = title
        self.detail = detail
        self.instance = instance
        #: Each bad field of a 422: ``{"location": "body.url", "message": ...}``.
        self.errors = errors or []
        #: For a failed job: the job and why it failed.
        self.job_id = job_id
        self.error_category = error_category
        #: Seconds from the Retry-After header, when the service sent one (429, 503).
        self.retry_after = retry_after


def retry_after_seconds(header: str | None, now: float | None = None) -> float | None:
    """Retry-After as seconds: delay-seconds or an HTTP date (RFC 9110 section 10.2.3)."""
    if not header:
        return None
    value = header.strip()
    if value.isdigit():
        return float(value)
    try:
        date = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, date.timestamp() - (time() if now is None else now))


def _is_problem(body: Any) -> bool:
    return isinstance(body, dict) and isinstance(body.get("status"), int) and isinstance(body.get("title"), str)


def problem_from_response(response: httpx.Response) -> ProblemError:
    """The exception for an error response whose body was read."""
    retry_after = retry_after_seconds(response.headers.get("retry-after"))
    text = response.text
    try:
        body: Any = json.loads(text)
    except ValueError:
        body = text
    if _is_problem(body):
        return ProblemError(
            type=str(body.get("type", "about:blank")),
            status=body["status"],
            title=body["title"],
            detail=str(body.get("detail", "")),
            instance=str(body.get("instance", "")),
            errors=body.get("errors") or [],
            job_id=body.get("job_id"),
            error_category=body.get("error_category"),
            retry_after=retry_after,
        )
    detail = body if isinstance(body, str) else json.dumps(body)
    return ProblemError(
        type="about:blank",
        status=response.status_code,
        title=response.reason_phrase or f"HTTP {response.status_code}",
        detail=detail[:500],
        instance=response.request.url.path if response.request else "",
        retry_after=retry_after,
    )
