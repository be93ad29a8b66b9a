"""The OpenAPI schema fuzzed with hypothesis: requests built from each operation's schema
(valid shapes with random values, and random JSON in their place) never get a 5xx, every
status is one the schema declares for that operation, and every error is the JSON
``{"error", "message"}``. (schemathesis does the same with more
machinery; this is self-contained and offline.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup.web.service import ServiceConfig
from tests.web.conftest import TOKEN, client_for

JSON_LEAF = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30)
)
ANY_JSON = st.recursive(
    JSON_LEAF,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
TEXTS = st.text(max_size=200) | st.sampled_from(
    [
        "<script>alert(1)</script>",
        "Каждый год мы с классом выбираем тему",
        "",
        "\x00\ud7ff",
        "Каждый год\ud800 мы",  # a lone surrogate
        "\udfff",
    ]
)


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = root["components"]["schemas"][name]
    return schema


def from_schema(
    schema: dict[str, Any], root: dict[str, Any], depth: int = 0
) -> st.SearchStrategy[Any]:
    """Values of a JSON schema (the subset FastAPI writes), random JSON now and then."""
    schema = _resolve(schema, root)
    if depth > 4:
        return ANY_JSON
    if "anyOf" in schema:
        return st.one_of([from_schema(s, root, depth + 1) for s in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"]) | st.text(max_size=8)
    kind = schema.get("type")
    if kind == "string":
        return TEXTS
    if kind == "integer":
        return st.integers(min_value=-5, max_value=200)
    if kind == "boolean":  # a boolean, now and then what a lax parser would take for one
        return st.booleans() | st.sampled_from(["true", "false", 1, 0, "yes"])
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {}), root, depth + 1), max_size=25)
    if kind == "object" and "properties" in schema:
        props = schema["properties"]
        required = set(schema.get("required", ()))
        return st.fixed_dictionaries(
            {k: from_schema(v, root, depth + 1) for k, v in props.items() if k in required},
            optional={
                k: from_schema(v, root, depth + 1) for k, v in props.items() if k not in required
            },
        )
    if kind == "null":
        return st.none()
    return ANY_JSON


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    from tests.web.conftest import make_collection

    db = make_collection(tmp_path_factory.mktemp("fuzz"))
    with client_for(ServiceConfig(db=db, token=TOKEN, max_body=100_000, max_text=20_000)) as c:
        yield c


def _operations(client: TestClient) -> list[tuple[str, str, dict[str, Any]]]:
    schema = client.get("/api/openapi.json").json()
    return [
        (path, method.upper(), op)
        for path, item in schema["paths"].items()
        for method, op in item.items()
    ]


@st.composite
def requests(draw: st.DrawFn, client: TestClient) -> tuple[str, str, dict[str, Any], set[int]]:
    root = client.get("/api/openapi.json").json()
    path, method, op = draw(st.sampled_from(_operations(client)))
    declared = {int(status) for status in op["responses"]}
    url = path
    params: dict[str, Any] = {}
    for p in op.get("parameters", []):
        value = draw(from_schema(p.get("schema", {}), root) | st.text(max_size=10))
        if p["in"] == "path":
            # a lone surrogate goes as its UTF-8-like bytes (%ED%A0%80), invalid UTF-8
            quoted = quote(str(value), safe="", errors="surrogatepass")
            url = url.replace("{" + p["name"] + "}", quoted or "x")
        elif draw(st.booleans()):
            params[p["name"]] = str(value)
    if params:
        url += "?" + "&".join(
            f"{quote(k)}={quote(v, safe='', errors='surrogatepass')}" for k, v in params.items()
        )
    kwargs: dict[str, Any] = {}
    if draw(st.booleans()):
        kwargs["headers"] = {"Authorization": f"Bearer {TOKEN}"}
    content = op.get("requestBody", {}).get("content", {})
    if "application/json" in content:
        body = draw(from_schema(content["application/json"]["schema"], root) | ANY_JSON)
        raw = json.dumps(body).encode()
        if draw(st.integers(0, 9)) == 0:
            raw = raw[: draw(st.integers(0, len(raw)))]  # cut: malformed JSON
        kwargs["content"] = raw
        kwargs.setdefault("headers", {})["content-type"] = "application/json"
    elif "multipart/form-data" in content:
        form = _resolve(content["multipart/form-data"]["schema"], root)
        files = {}
        data = {}
        for name, prop in form.get("properties", {}).items():
            if not draw(st.integers(0, 5)):
                continue  # leave a field out now and then
            if _resolve(prop, root).get("format") == "binary" or prop.get("contentMediaType"):
                suffix = draw(st.sampled_from([".txt", ".html", ".docx", ".pdf", ".exe", ""]))
                files[name] = (f"f{suffix}", draw(st.binary(max_size=300)))
            else:
                # a lone surrogate cannot go in a form (a browser sends U+FFFD): replaced
                value = str(draw(from_schema(prop, root)))
                data[name] = value.encode("utf-8", "replace").decode("utf-8")
        kwargs["files"] = files or None
        kwargs["data"] = data or None
    return method, url, kwargs, declared


@pytest.mark.slow
def test_no_5xx_from_fuzzed_requests(fuzz_client: TestClient) -> None:
    seen: set[int] = set()

    @settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
    @given(requests(fuzz_client))
    def one(request: tuple[str, str, dict[str, Any], set[int]]) -> None:
        method, url, kwargs, declared = request
        r = fuzz_client.request(method, url, **kwargs)
        seen.add(r.status_code)
        assert r.status_code < 500, (method, url, r.status_code, r.text[:300])
        assert r.status_code in declared, (method, url, r.status_code, declared, r.text[:300])
        if r.status_code >= 400:
            body = r.json()
            assert set(body) == {"error", "message"} and body["message"], body

    one()
    assert {200, 401, 422} <= seen, seen  # the fuzzing reached both sides of the checks


def test_every_route_declares_its_errors(fuzz_client: TestClient) -> None:
    """The schema lists the errors each operation can answer, each as ``{error, message}``."""
    schema = fuzz_client.get("/api/openapi.json").json()
    declared = {
        (method.upper(), path): sorted(int(s) for s in op["responses"])
        for path, item in schema["paths"].items()
        for method, op in item.items()
    }
    # every state-changing route: 403 for a request from another origin or without the form
    # token where the service's cookies would act
    # a check without the token: 429 past the rate per client
    assert declared[("POST", "/api/check")] == [200, 400, 401, 403, 413, 422, 429, 503]
    assert declared[("POST", "/api/documents/file")] == [
        200, 400, 401, 403, 409, 413, 415, 422, 503
    ]  # fmt: skip
    assert declared[("GET", "/api/documents/{doc_id}")] == [200, 400, 401, 404, 413, 422, 503]
    assert declared[("GET", "/api/stats")] == [200, 401, 413, 503]
    # the kept checks (#25): a malformed id is a 400, an unknown one a 404, another's a 403
    assert declared[("GET", "/api/checks")] == [200, 401, 413, 422, 503]
    # … and a damaged one a 500 (DamagedCheckError)
    kept = [200, 400, 401, 404, 413, 422, 500, 503]
    assert declared[("GET", "/api/checks/{check_id}")] == kept
    assert declared[("GET", "/api/checks/{check_id}/pdf")] == kept
    assert declared[("DELETE", "/api/checks/{check_id}")] == [
        200, 400, 401, 403, 404, 405, 413, 422, 503
    ]  # fmt: skip
    error = schema["paths"]["/api/check"]["post"]["responses"]["422"]["content"]
    assert error["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorOut"}
    assert schema["components"]["schemas"]["ErrorOut"]["required"] == ["error", "message"]


def test_booleans_are_booleans(fuzz_client: TestClient) -> None:
    """JSON bodies take JSON's types as they are: ``"true"`` or ``1`` is not a boolean."""
    for value in ("true", 1, "yes"):
        r = fuzz_client.post("/api/check", json={"text": "Каждый год", "fragments": value})
        assert r.status_code == 422, (value, r.text)
        assert r.json() == {
            "error": "invalid_request",
            "message": "fragments: Input should be a valid boolean",
        }
    ok = fuzz_client.post("/api/check", json={"text": "Каждый год", "fragments": True})
    assert ok.status_code == 200 and "fragments" in ok.json()
