"""Schemathesis hooks for the conformance run (test/integration/api/openapi-conformance.test.ts).

Generated requests keep every structural property schemathesis chose, but a value whose validity depends on
the world rather than on its shape is swapped for a real one (or, for model settings and page actions, left
out): page URLs point at the loopback fixture site,
webhook URLs at the loopback receiver, ids at resources the test created, CSS selectors, URL patterns, cron
expressions and schema texts at valid ones. Only positive (schema-valid) cases are changed, and only their
string values (and inline schema objects), so they stay schema-valid; negative cases reach the API as
generated. Waits are capped so a generated `timeout=120` does not hold the run.
"""

import os

import schemathesis

ENV = os.environ
PAGE_URL = ENV["CONFORMANCE_PAGE_URL"]
RECEIVER_URL = ENV["CONFORMANCE_RECEIVER_URL"]
IDS = {
    "schema_id": ENV["CONFORMANCE_SCHEMA_ID"],
    "default_schema_id": ENV["CONFORMANCE_SCHEMA_ID"],
    "webhook_id": ENV["CONFORMANCE_WEBHOOK_ID"],
    "site_id": ENV["CONFORMANCE_SITE_ID"],
}
VALID_TEXT = {
    "follow_selector": "a",
    "next_selector": "a.next",
    "follow_pattern": "product",
    "url_pattern": "login",
    "schema_yaml": "name: Product\nfields:\n  title: string\n  price: number\n",
    "cron": "0 * * * *",
    "base_url": "",
    "every": "1h",
    "timezone": "UTC",
    # Chromium is covered by the fetch tests; here it would only add seconds per request.
    "fetch_mode": "static",
}


WORLD_BOUND = {"llm_config", "actions", "formats", "load_more"}


def _swap(value, key=None, in_webhook=False):
    if isinstance(value, dict):
        if key == "schema":
            return {"title": "string", "price": "number"}
        inner = in_webhook or key == "webhook"
        # Model settings hang on the keys the tenant stored, page actions (and analyze's load_more finding, which
        # holds some) on what the page holds: left out.
        return {k: _swap(v, k, inner) for k, v in value.items() if k not in WORLD_BOUND}
    if isinstance(value, list):
        return [_swap(v, key, in_webhook) for v in value]
    if not isinstance(value, str):
        return value
    if key in IDS:
        return IDS[key]
    if key in VALID_TEXT:
        return VALID_TEXT[key]
    if key == "remove_selectors":
        return ".conformance-absent"
    if key and "selector" in key:
        return "main"
    if key == "schema":
        return "the page title and the price"
    if key == "webhook_url" or (key == "url" and in_webhook):
        return RECEIVER_URL
    if key == "url":
        return PAGE_URL
    return value


def _mode(case, location):
    """How a part of the case was generated: positive (fits the schema) or negative."""
    meta = getattr(case, "meta", None)
    if meta is None:
        return "positive"
    for where, info in meta.components.items():
        if str(getattr(where, "value", where)) == location:
            return str(info.mode)
    return str(meta.generation.mode)


PROTECTED = set(IDS.values())


@schemathesis.hook
def before_call(context, case, kwargs):
    """Every phase (examples, coverage, fuzzing, stateful) calls this just before sending."""
    path = case.operation.path
    # The resources the hooks point at stay: a generated DELETE of one goes to an id that does not exist.
    if case.method.upper() == "DELETE" and isinstance(case.path_parameters, dict):
        if case.path_parameters.get("id") in PROTECTED and path.count("/") == 4:
            case.path_parameters = {**case.path_parameters, "id": "conformance-kept"}
    # A part generated to be invalid reaches the API unchanged; valid parts get real values.
    if _mode(case, "query") == "positive" and isinstance(case.query, dict) and "timeout" in case.query:
        case.query = {**case.query, "timeout": 10}
    if _mode(case, "body") == "positive" and case.body is not None:
        case.body = _swap(case.body, None, path.startswith("/api/v1/webhooks"))
        # A site session's login recipe is page actions (left out above), so the recipe goes too.
        if path.endswith("/session") and isinstance(case.body, dict):
            case.body.pop("login", None)


TIMES = ENV.get("CONFORMANCE_TIMES")


@schemathesis.hook
def after_call(context, case, response):
    """With CONFORMANCE_TIMES set, one line a request (operation, status, seconds) is added to that file."""
    if TIMES:
        with open(TIMES, "a", encoding="utf-8") as out:
            out.write(f"{case.method.upper()} {case.operation.path} {response.status_code} {response.elapsed:.3f}\n")
