"""The service under test comes from test/integration/clients/python-client.test.ts, which starts the real stack, a
fixture site and a proxy in front of the API (it records requests, drops each job's first stream after a few
events, and answers a request carrying ``x-test-fault: <status>-once`` with that status once)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from extract_service_client import Client

ENV = (
    "EXTRACT_SERVICE_URL",  # the proxy
    "EXTRACT_SERVICE_DIRECT_URL",  # the API itself
    "EXTRACT_SERVICE_API_KEY",
    "EXTRACT_SERVICE_LIMITED_API_KEY",  # a tenant allowed one request a minute
    "FIXTURE_SITE_URL",  # /a, /b, /c: product pages; /: links to them
)
SCHEMA = {"title": "string", "price": "number"}


def pytest_configure(config: pytest.Config) -> None:
    missing = [name for name in ENV if not os.environ.get(name)]
    if missing:
        raise pytest.UsageError(f"run through test/integration/clients/python-client.test.ts (missing {', '.join(missing)})")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def env() -> dict[str, str]:
    return {name: os.environ[name] for name in ENV}


@pytest.fixture(scope="session")
def site(env: dict[str, str]) -> str:
    return env["FIXTURE_SITE_URL"]


@pytest.fixture
def client(env: dict[str, str]) -> Iterator[Client]:
    with Client(env["EXTRACT_SERVICE_URL"], env["EXTRACT_SERVICE_API_KEY"]) as c:
        yield c


@pytest.fixture
def direct(env: dict[str, str]) -> Iterator[Client]:
    with Client(env["EXTRACT_SERVICE_DIRECT_URL"], env["EXTRACT_SERVICE_API_KEY"]) as c:
        yield c


def crawl_body(site: str) -> dict[str, Any]:
    return {
        "url": f"{site}/",
        "schema": SCHEMA,
        "options": {"max_pages": 4, "max_depth": 1, "follow_selector": "main a"},
    }


@pytest.fixture(scope="session")
def proxy_seen(env: dict[str, str]):
    """The requests the proxy saw, oldest first: method, path, idempotency-key, last-event-id, x-test-fault,
    at (arrival, epoch milliseconds)."""

    def seen() -> list[dict[str, Any]]:
        return httpx.get(f"{env['EXTRACT_SERVICE_URL']}/__test/seen").json()

    return seen


@dataclass
class Delivery:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    url: str
    deliveries: list[Delivery] = field(default_factory=list)

    def wait_for(self, path: str, timeout: float = 30.0) -> Delivery:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for delivery in self.deliveries:
                if delivery.path == path:
                    return delivery
            time.sleep(0.05)
        raise AssertionError(f"no webhook delivery to {path} within {timeout} s")


@pytest.fixture(scope="session")
def receiver() -> Iterator[Receiver]:
    """A webhook receiver on 127.0.0.1 that records each delivery's raw body and headers."""
    rx = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            rx.deliveries.append(Delivery(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    rx.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield rx
    server.shutdown()
    server.server_close()
