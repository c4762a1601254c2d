"""A typed client of the web data extraction service (sync :class:`Client`, async :class:`AsyncClient`).

The request and response models in :mod:`extract_service_client.models` are generated from the service's
OpenAPI document.
"""

from . import models
from ._async_client import AsyncClient
from ._base import ResultFormat
from ._client import Client
from ._errors import ProblemError
from ._retry import RetryPolicy
from ._sse import StreamEndedEarly, StreamEvent
from ._webhooks import verify_webhook

__version__ = "0.1.0"

__all__ = [
    "AsyncClient",
    "Client",
    "ProblemError",
    "ResultFormat",
    "RetryPolicy",
    "StreamEndedEarly",
    "StreamEvent",
    "models",
    "verify_webhook",
]
