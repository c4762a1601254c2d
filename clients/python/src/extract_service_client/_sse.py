"""GET /jobs/{id}/stream as typed events, resumed with Last-Event-ID after a dropped connection, so that the
caller sees every event once, in order, until ``complete``. The wire format is parsed by httpx-sse; this
module keeps what a reconnection needs (the last id, the service's ``retry``, the failures in a row)."""

from __future__ import annotations

import json
from typing import Any, Literal, Protocol

from httpx_sse import ServerSentEvent
from pydantic import TypeAdapter

from . import models


class StreamEvent(Protocol):
    """One event of a job stream, a generated model (one of the union ``models.JobStreamEvent``): ``status``,
    ``result`` (one page's result), ``error`` (a failed page of a crawl that goes on) or ``complete``."""

    @property
    def event(self) -> Literal["status", "result", "error", "complete"]: ...
    @property
    def id(self) -> int: ...
    @property
    def retry(self) -> int: ...
    @property
    def data(self) -> Any: ...
    def model_dump(self) -> dict[str, Any]: ...


_EVENT: TypeAdapter[StreamEvent] = TypeAdapter(models.JobStreamEvent)


class StreamEndedEarly(Exception):
    """The stream was dropped more times in a row, without a new event, than the client allows."""


class StreamState:
    def __init__(self, last_event_id: int | None, max_reconnects: int, max_reconnect_delay: float) -> None:
        self.last_event_id = last_event_id
        self.max_reconnects = max_reconnects
        self.max_reconnect_delay = max_reconnect_delay
        self.retry_seconds = 1.0
        self.failures = 0

    def headers(self) -> dict[str, str]:
        headers = {"accept": "text/event-stream", "cache-control": "no-store"}
        if self.last_event_id is not None:
            headers["last-event-id"] = str(self.last_event_id)
        return headers

    def accept(self, sse: ServerSentEvent) -> StreamEvent:
        """The typed event of a parsed one; remembers its id for a resumption."""
        if sse.retry is not None:
            self.retry_seconds = sse.retry / 1000
        raw = {"event": sse.event, "id": int(sse.id), "retry": sse.retry, "data": json.loads(sse.data)}
        event = _EVENT.validate_python(raw)
        self.last_event_id = event.id
        self.failures = 0
        return event

    def dropped(self, error: BaseException | None) -> float:
        """Seconds to wait before reconnecting after the response ended before ``complete``."""
        self.failures += 1
        if self.failures > self.max_reconnects:
            raise StreamEndedEarly(f"job stream ended {self.failures} times early") from error
        return min(self.retry_seconds, self.max_reconnect_delay)
