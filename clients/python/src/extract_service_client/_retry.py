"""When to send a request again: 429 and 503 answers after the Retry-After the service asks for (bounded), and
network errors of requests that are safe to repeat (GETs, and POSTs carrying an Idempotency-Key)."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from ._errors import retry_after_seconds

RETRY_STATUSES = frozenset({429, 503})
BACKOFF_SECONDS = 0.5


@dataclass(frozen=True)
class RetryPolicy:
    #: Retries after the first attempt (0 turns retrying off).
    retries: int = 3
    #: The longest wait the client accepts: a longer Retry-After is returned to the caller as the error.
    max_retry_delay: float = 30.0

    @staticmethod
    def backoff(attempt: int) -> float:
        return BACKOFF_SECONDS * float(2**attempt)

    def after_error(self, request: httpx.Request, attempt: int) -> float | None:
        """Seconds to wait before repeating a request that failed on the network, or None to give up."""
        can_repeat = request.method == "GET" or "idempotency-key" in request.headers
        return self.backoff(attempt) if attempt < self.retries and can_repeat else None

    def after_response(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before sending the request again, or None to hand the response over."""
        if attempt >= self.retries or response.status_code not in RETRY_STATUSES:
            return None
        wait = retry_after_seconds(response.headers.get("retry-after"))
        wait = self.backoff(attempt) if wait is None else wait
        return wait if wait <= self.max_retry_delay else None
