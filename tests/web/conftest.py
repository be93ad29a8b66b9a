"""A small collection (examples/collection/ under the group policy) and the app over it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra is missing: pip install 'neardup[web]'")

from fastapi.testclient import TestClient  # noqa: E402

from neardup.fingerprints.pipeline import make_spec  # noqa: E402
from neardup.index import Collection, IndexSpec  # noqa: E402
from neardup.inputs import iter_inputs  # noqa: E402
from neardup.web.app import create_app  # noqa: E402
from neardup.web.service import ServiceConfig  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
TOKEN = "test-token-3f9"


def make_collection(path: Path) -> str:
    db = str(path / "texts.db")
    with Collection.create(db, make_spec("ru"), IndexSpec(policy="group", threshold=0.5)) as col:
        col.add_many(iter_inputs([EXAMPLES / "collection"]))
    return db


@pytest.fixture(scope="session")
def essay() -> str:
    return (EXAMPLES / "essay_with_quote.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def park() -> str:
    return (EXAMPLES / "collection" / "park.txt").read_text(encoding="utf-8")


@pytest.fixture()
def db(tmp_path: Path) -> str:
    return make_collection(tmp_path)


def client_for(config: ServiceConfig) -> TestClient:
    return TestClient(create_app(config), raise_server_exceptions=False)


@pytest.fixture()
def client(db: str) -> Iterator[TestClient]:
    with client_for(ServiceConfig(db=db, token=TOKEN, max_body=200_000, max_text=50_000)) as c:
        yield c


@pytest.fixture()
def auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


def form_token(client: TestClient, path: str = "/") -> str:
    """The form token (``csrf``) of a page the client opens, as its forms send it."""
    import re

    found = re.search(r'<meta name="csrf-token" content="([0-9a-f]{64})">', client.get(path).text)
    assert found is not None, f"no form token on {path}"
    return found.group(1)
