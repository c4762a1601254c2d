"""The Refyne product's official Python SDK (``refyne`` 0.1.46 from PyPI), unchanged, against the real stack.

Run by test/integration/clients/refyne-sdk.test.ts, which starts the service, a fixture site (/, /a, /b, /c) and gives a
key pinned to API version ``refyne``. Each test calls SDK methods as a user would and checks that they return
normally with the data the service produced; the last test checks that all 41 public methods were called.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from refyne import Refyne
from refyne.errors import AuthenticationError, ForbiddenError, NotFoundError, ValidationError

BASE_URL = os.environ["REFYNE_SDK_BASE_URL"]
API_KEY = os.environ["REFYNE_SDK_API_KEY"]
SITE = os.environ["FIXTURE_SITE_URL"].rstrip("/")
FAKE_LLM = os.environ["FAKE_LLM_OPENAI_URL"]
SCHEMA = {"title": "string", "price": "number"}
SCHEMA_YAML = "name: product\nfields:\n  - name: title\n    type: string\n  - name: price\n    type: number\n"

CALLED: set[str] = set()
STATE: dict[str, Any] = {}


class Recorder:
    """Passes every call through to the SDK object, recording which public method was called."""

    def __init__(self, target: Any, prefix: str = "") -> None:
        self._target = target
        self._prefix = prefix

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if inspect.iscoroutinefunction(value):

            async def call(*args: Any, **kwargs: Any) -> Any:
                CALLED.add(f"{self._prefix}{name}")
                return await value(*args, **kwargs)

            return call
        if not name.startswith("_") and hasattr(value, "_client"):
            return Recorder(value, f"{self._prefix}{name}.")
        return value


class Warnings:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def debug(self, message: str, meta: Any = None) -> None: ...
    def info(self, message: str, meta: Any = None) -> None: ...
    def error(self, message: str, meta: Any = None) -> None: ...

    def warn(self, message: str, meta: Any = None) -> None:
        self.lines.append(message)


def run(scenario: Callable[[Any], Awaitable[None]], api_key: str = API_KEY) -> None:
    async def main() -> None:
        async with Refyne(api_key, base_url=BASE_URL, max_retries=2, logger=Warnings()) as client:
            await scenario(Recorder(client))

    asyncio.run(main())


async def finished(client: Any, job_id: str, timeout: float = 90) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        job = await client.jobs.get(job_id)
        if job.status in ("completed", "failed", "cancelled"):
            return job
        assert asyncio.get_running_loop().time() < deadline, f"job {job_id} still {job.status}"
        await asyncio.sleep(0.5)


def test_service_calls() -> None:
    async def scenario(client: Any) -> None:
        health = await client.health()
        assert health == {"status": "ok", "version": health["version"]} and health["version"]
        cleaners = await client.list_cleaners()
        assert "markdown" in [c["name"] for c in cleaners["cleaners"]]
        assert cleaners["default_extraction_chain"] == [{"name": "markdown"}]
        assert cleaners["default_analysis_chain"] == [{"name": "markdown"}]
        tiers = (await client.get_pricing_tiers())["tiers"]
        assert tiers and {"name", "requests_per_minute", "max_pages_per_crawl"} <= set(tiers[0])

    run(scenario)


def test_extract_and_its_job() -> None:
    async def scenario(client: Any) -> None:
        result = await client.extract(url=f"{SITE}/a", schema=SCHEMA, fetch_mode="static")
        assert sorted(result.data) == ["price", "title"] and result.data["price"] == 12.5
        assert result.url == f"{SITE}/a" and result.usage.input_tokens > 0
        assert result.metadata.provider == "openai" and result.metadata.model
        STATE["extract_job"] = result.job_id

        job = await client.jobs.get(result.job_id)
        assert (job.id, job.type, job.status, job.page_count) == (result.job_id, "extract", "completed", 1)
        listed = await client.jobs.list(limit=5, offset=0)
        assert result.job_id in [j.id for j in listed.jobs]

        results = await client.jobs.get_results(result.job_id)
        assert (results.job_id, results.status, results.page_count) == (result.job_id, "completed", 1)
        assert [(r.url, r.data) for r in results.results or []] == [(f"{SITE}/a", result.data)]
        assert await client.jobs.get_results_merged(result.job_id) == result.data

        crawl_map = await client.jobs.get_crawl_map(result.job_id)
        [entry] = crawl_map["entries"]
        assert entry["status"] == "completed" and isinstance(entry["fetch_duration_ms"], int)
        debug = await client.jobs.get_debug_capture(result.job_id)
        assert debug["job_id"] == result.job_id and debug["enabled"] is False
        deliveries = await client.jobs.get_webhook_deliveries(result.job_id)
        assert deliveries == {"deliveries": [], "job_id": result.job_id}

        download = await client.jobs.download(result.job_id)
        assert download["job_id"] == result.job_id and download["expires_at"]
        assert API_KEY not in download["download_url"]
        async with httpx.AsyncClient() as http:  # no API key: the signed URL is enough
            body = (await http.get(download["download_url"])).raise_for_status().json()
        assert [item["data"] for item in body] == [result.data]

    run(scenario)


def test_crawl_with_the_products_options() -> None:
    async def scenario(client: Any) -> None:
        options = {"follow_selector": "a", "max_depth": 1, "max_pages": 10, "max_urls": 3,
                   "extract_from_seeds": True, "use_sitemap": None, "fetch_mode": "static"}
        created = await client.crawl(url=f"{SITE}/", schema=SCHEMA, options=options,
                                     webhook_url=f"{SITE}/hook")
        assert created.status in ("pending", "running") and created.status_url
        job = await finished(client, created.job_id)
        assert job.status == "completed" and job.page_count == 3  # max_urls: the seed and two links
        results = await client.jobs.get_results(created.job_id)
        assert len(results.results or []) == 3
        merged = await client.jobs.get_results_merged(created.job_id)
        assert merged["title"] and merged["price"] == 12.5
        for _ in range(60):
            deliveries = (await client.jobs.get_webhook_deliveries(created.job_id))["deliveries"]
            if "job.completed" in {d["event_type"] for d in deliveries}:
                break
            await asyncio.sleep(0.5)
        assert "job.completed" in {d["event_type"] for d in deliveries}

        with pytest.raises(ValidationError) as refused:
            await client.crawl(url=f"{SITE}/", schema=SCHEMA, options={"use_sitemap": True})
        assert refused.value.status == 400
        assert refused.value.errors[0]["location"] == "body.options.use_sitemap"

    run(scenario)


def test_analyze() -> None:
    async def scenario(client: Any) -> None:
        analysis = await client.analyze(url=f"{SITE}/", depth=0)
        assert analysis.job_id and analysis.page_type
        assert f"{SITE}/a" in analysis.sample_links

    run(scenario)


def test_schemas() -> None:
    async def scenario(client: Any) -> None:
        created = await client.schemas.create("Product", SCHEMA_YAML, description="A product", category="ecommerce")
        assert (created.name, created.visibility, created.usage_count) == ("Product", "private", 0)
        assert created.id in [s.id for s in (await client.schemas.list()).schemas]
        assert (await client.schemas.get(created.id)).schema_yaml == SCHEMA_YAML
        updated = await client.schemas.update(created.id, description="Products")
        assert updated.description == "Products"
        STATE["schema_id"] = created.id

    run(scenario)


def test_sites() -> None:
    async def scenario(client: Any) -> None:
        crawl_options = {"follow_selector": "a", "max_depth": 1, "max_pages": 5}
        site = await client.sites.create("Fixture", f"{SITE}/", schema_id=STATE["schema_id"],
                                         crawl_options=crawl_options)
        assert site.domain == "127.0.0.1" and site.default_schema_id == STATE["schema_id"]
        assert site.crawl_options and site.crawl_options.max_pages == 5
        assert site.id in [s.id for s in (await client.sites.list()).sites]
        assert (await client.sites.get(site.id)).name == "Fixture"
        assert (await client.sites.update(site.id, name="Fixture shop")).name == "Fixture shop"
        assert await client.sites.delete(site.id) is None
        with pytest.raises(NotFoundError):
            await client.sites.get(site.id)
        assert await client.schemas.delete(STATE["schema_id"]) is None

    run(scenario)


def test_webhooks() -> None:
    async def scenario(client: Any) -> None:
        hook = await client.webhooks.create("sdk-hook", f"{SITE}/hook", events=["job.completed"], secret="s3cret")
        assert hook["has_secret"] is True and hook["events"] == ["job.completed"]
        assert hook["id"] in [h["id"] for h in (await client.webhooks.list())["webhooks"]]
        assert (await client.webhooks.get(hook["id"]))["name"] == "sdk-hook"
        updated = await client.webhooks.update(hook["id"], name="sdk-hook-2", url=f"{SITE}/hook", is_active=True)
        assert updated["name"] == "sdk-hook-2"
        await client.extract(url=f"{SITE}/b", schema=SCHEMA)
        for _ in range(60):
            deliveries = (await client.webhooks.list_deliveries(hook["id"], limit=10, offset=0))["deliveries"]
            if deliveries and deliveries[0]["status"] == "success":
                break
            await asyncio.sleep(0.5)
        assert deliveries[0]["status"] == "success" and deliveries[0]["event_type"] == "job.completed"
        assert await client.webhooks.delete(hook["id"]) is None

    run(scenario)


def test_llm_settings() -> None:
    async def scenario(client: Any) -> None:
        providers = (await client.llm.list_providers()).providers
        assert {"openai", "anthropic"} <= {p.name for p in providers}
        models = (await client.llm.list_models("openai")).models
        [mini] = [m for m in models if m.id == "gpt-4o-mini"]
        assert mini.context_size == 128000 and mini.is_free is False

        key = await client.llm.upsert_key("openai", "sk-tenant", "gpt-4o-mini", base_url=FAKE_LLM, is_enabled=True)
        assert (key.provider, key.has_key, key.base_url) == ("openai", True, FAKE_LLM)
        assert [k.id for k in (await client.llm.list_keys()).keys] == [key.id]
        # llm_config without a model: the key's default_model, on the tenant's own key (BYOK).
        byok = await client.extract(url=f"{SITE}/c", schema=SCHEMA, llm_config={"provider": "openai"})
        assert byok.metadata.model == "gpt-4o-mini" and byok.usage.is_byok is True

        assert await client.llm.set_chain([{"provider": "openai", "model": "gpt-4o-mini", "is_enabled": True}]) is None
        [entry] = (await client.llm.get_chain()).chain
        assert (entry.provider, entry.model, entry.position) == ("openai", "gpt-4o-mini", 0)
        await client.llm.set_chain([])
        assert await client.llm.delete_key(key.id) is None
        assert (await client.llm.list_keys()).keys == []

    run(scenario)


def test_api_keys() -> None:
    async def scenario(client: Any) -> None:
        keys = (await client.keys.list()).keys
        assert all(k.key_prefix and k.scopes for k in keys)
        assert {tuple(k.scopes) for k in keys} == {("full",), ("read",)}
        created = await client.keys.create("second")
        assert created.key.startswith(created.key_prefix) and created.scopes == ["full"]

        async with Refyne(created.key, base_url=BASE_URL) as second:
            assert (await second.health())["status"] == "ok"
            assert [j.id for j in (await second.jobs.list(limit=1)).jobs]  # the same tenant's jobs
        assert await client.keys.revoke(created.id) is None
        async with Refyne(created.key, base_url=BASE_URL, max_retries=0) as revoked:
            with pytest.raises(AuthenticationError):
                await revoked.health()

    run(scenario)


def test_errors_are_the_sdks_own() -> None:
    async def scenario(client: Any) -> None:
        with pytest.raises(ValidationError) as invalid:
            await client.extract(url="not a url", schema=SCHEMA)
        assert invalid.value.status == 400 and invalid.value.errors[0]["location"] == "body.url"
        with pytest.raises(NotFoundError):
            await client.jobs.get("job_does_not_exist")

    run(scenario)


def test_read_only_key_is_forbidden_to_start_jobs() -> None:
    async def scenario(client: Any) -> None:
        listed = (await client.jobs.list(limit=1)).jobs
        assert listed
        with pytest.raises(ForbiddenError):
            await client.extract(url=f"{SITE}/a", schema=SCHEMA)

    run(scenario, api_key=os.environ["REFYNE_SDK_READ_API_KEY"])


def test_usage() -> None:
    async def scenario(client: Any) -> None:
        usage = await client.get_usage()
        assert usage.total_jobs >= 5 and usage.byok_jobs >= 1
        assert usage.total_charged_usd >= 0

    run(scenario)


def test_every_public_method_was_called() -> None:
    def methods(obj: Any, prefix: str = "") -> set[str]:
        names = {f"{prefix}{n}" for n, v in inspect.getmembers(obj) if inspect.iscoroutinefunction(v)
                 and not n.startswith("_") and n not in ("close", "__aenter__", "__aexit__")}
        return names

    client = Refyne("unused", base_url=BASE_URL)
    expected = methods(client)
    for sub in ("jobs", "schemas", "sites", "keys", "llm", "webhooks"):
        expected |= methods(getattr(client, sub), f"{sub}.")
    assert len(expected) == 41, sorted(expected)
    assert expected - CALLED == set(), sorted(expected - CALLED)
