"""The HTTP API: every collection verb, compare and matrix, JSON as the CLI's ``--json``.

Reads (check, get, groups, stats, compare, matrix) are open or need the token, as the service
was started; writes (add, remove) always need it. Uploads take ``.txt``/``.md`` (any encoding
the analyzer decodes), ``.html``, ``.docx``, ``.odt``, ``.rtf``, ``.doc`` and ``.pdf``.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, Query, Request, Response, UploadFile
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from neardup.analysis.tricks import Tricks
from neardup.defaults import DEFAULTS, TOP_MAX
from neardup.errors import InputError
from neardup.score.matrix import METHODS
from neardup.web.auth import guard_writes, require_read, require_write, token_of, token_ok
from neardup.web.forms import LimitedRoute
from neardup.web.kept import kept_json
from neardup.web.limits import limit_checks
from neardup.web.responses import BODY, READ, WRITE, errors
from neardup.web.service import Service, upload, upload_name
from neardup.web.texts import ID_PATTERN, check_id_value

router = APIRouter(
    prefix="/api", tags=["api"], route_class=LimitedRoute, dependencies=[Depends(guard_writes)]
)


Policy = Literal["reject", "group", "allow"]
Method = Literal["containment", "resemblance", "sorensen", "minhash", "tfidf", "combined"]
assert set(Method.__args__) == set(METHODS)  # type: ignore[attr-defined]


def _whole(value: Any) -> Any:
    """A JSON number with no fraction (``69.0``) as the integer it is: JSON Schema's
    ``integer`` takes it, so the server does too."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: An integer as JSON Schema means it (``69.0`` included).
Whole = Annotated[int, BeforeValidator(_whole)]
#: A document id: 1 to 1000 characters, not only spaces, no text-direction control (which
#: would show it as another name); the schema says so by its pattern.
Id = Annotated[
    str,
    Field(min_length=1, max_length=1000, json_schema_extra={"pattern": ID_PATTERN}),
    AfterValidator(check_id_value),
]


class _Strict(BaseModel):
    """No unknown fields, and JSON's types as they are: ``true`` is a boolean, ``"true"`` not."""

    model_config = ConfigDict(extra="forbid", strict=True)


class CheckIn(_Strict):
    text: str = Field(description="The text to check (plain text or HTML).")
    top: Whole = Field(
        DEFAULTS.top,
        ge=1,
        le=TOP_MAX,
        description="Matches listed, with their passages (the uniqueness counts every "
        "source found, listed or not).",
    )
    fragments: bool = Field(
        DEFAULTS.fragments, description="Also list the passages copied from its matches."
    )
    exclude: list[str] = Field(
        default_factory=list, max_length=1000, description="Ids of documents to leave out."
    )


class DocumentIn(_Strict):
    id: Id
    text: str
    meta: dict[str, Any] = Field(default_factory=dict)


class AddIn(_Strict):
    documents: list[DocumentIn] = Field(min_length=1, max_length=1000)
    policy: Policy | None = Field(None, description="Override the collection's policy.")
    check: bool = Field(
        True,
        description="False: a bulk load, as `neardup index add --no-check`: every document is "
        "stored without comparing it with the collection or the others (reason `unchecked`; "
        "ids and length limits still apply).",
    )


class RemoveIn(_Strict):
    ids: list[Id] = Field(min_length=1, max_length=10000)


class CompareIn(_Strict):
    a: str
    b: str
    fragments: bool = Field(DEFAULTS.fragments, description="Also list A's passages from B.")
    b_id: Id = Field("B", description="B's name in the passages (the CLI: its path).")


class MatrixIn(_Strict):
    texts: list[str] = Field(min_length=2, max_length=1000)
    ids: list[Id] | None = Field(
        None,
        min_length=2,
        max_length=1000,
        description="One per text, unique (default: 1, 2, …).",
    )
    method: Method = DEFAULTS.matrix  # type: ignore[assignment]  # as ``neardup matrix``


def _service(request: Request) -> Service:
    return request.app.state.service


def _read(request: Request) -> Service:
    service = _service(request)
    require_read(service.config, token_of(request))
    return service


def _write(request: Request) -> Service:
    service = _service(request)
    require_write(service.config, token_of(request))
    return service


async def _upload(service: Service, file: UploadFile) -> tuple[str, Tricks]:
    data = await file.read()
    name = upload_name(file.filename or "", file.content_type, data)
    text, hidden = await asyncio.to_thread(upload, data, name)
    return service.limit_text(text, f"the text of {file.filename!r}"), hidden


@router.post(
    "/check",
    summary="Check a text: uniqueness, matches, passages (kept when the service keeps checks)",
    responses=errors(*READ, *BODY, 429),
)
def check(body: CheckIn, request: Request, response: Response) -> dict[str, Any]:
    """The JSON of ``neardup index check --json`` (``"fragments"`` with ``fragments: true``),
    with ``check_id`` when checks are kept (:mod:`neardup.web.kept`); the collection itself
    is left as it was."""
    service = _read(request)
    limit_checks(request, token_ok(service.config, token_of(request)))
    checked = service.check(body.text, top=body.top, fragments=body.fragments, exclude=body.exclude)
    return kept_json(request, response, checked)


@router.post(
    "/check/file",
    summary="Check an uploaded file (.txt, .html, .docx, .odt, .rtf, .doc, .pdf)",
    responses=errors(*READ, *BODY, 415, 429),
)
async def check_file(
    request: Request,
    file: Annotated[UploadFile, File()],
    response: Response,
    top: Annotated[int, Form(ge=1, le=TOP_MAX)] = DEFAULTS.top,
    fragments: Annotated[bool, Form()] = DEFAULTS.fragments,
    exclude: Annotated[list[str] | None, Form()] = None,
) -> dict[str, Any]:
    """As ``/api/check``, plus ``"text"``: the text extracted from the file, which the
    passages' offsets refer to."""
    service = _read(request)
    limit_checks(request, token_ok(service.config, token_of(request)))
    text, hidden = await _upload(service, file)
    checked = await asyncio.to_thread(
        service.check, text, top=top, fragments=fragments, exclude=exclude or [], hidden=hidden
    )
    out = kept_json(request, response, checked, file.filename or "")
    out["text"] = text
    return out


@router.post(
    "/documents",
    summary="Check and add documents under a policy",
    responses=errors(*WRITE, *BODY, 409),
)
def add(body: AddIn, request: Request) -> dict[str, Any]:
    """The JSON of ``neardup index add --json``: counts and one decision per document."""
    service = _write(request)
    docs = [(d.id, d.text, d.meta) for d in body.documents]
    return service.add(docs, policy=body.policy, check=body.check)


@router.post(
    "/documents/file",
    summary="Check and add an uploaded file as one document",
    responses=errors(*WRITE, *BODY, 409, 415),
)
async def add_file(
    request: Request,
    id: Annotated[
        str,
        Form(min_length=1, max_length=1000, json_schema_extra={"pattern": ID_PATTERN}),
        AfterValidator(check_id_value),
    ],
    file: Annotated[UploadFile, File()],
    policy: Annotated[Policy | None, Form()] = None,
) -> dict[str, Any]:
    service = _write(request)
    text, _ = await _upload(service, file)
    meta = {"filename": file.filename or ""}
    return await asyncio.to_thread(service.add, [(id, text, meta)], policy=policy)


@router.post(
    "/remove", summary="Remove documents (all or nothing)", responses=errors(*WRITE, *BODY, 404)
)
def remove(body: RemoveIn, request: Request) -> dict[str, Any]:
    service = _write(request)
    return service.remove(body.ids)


@router.delete(
    "/documents/{doc_id:path}",
    summary="Remove one document",
    responses=errors(*WRITE, 400, 404, 413, 422),
)
def remove_one(doc_id: str, request: Request) -> dict[str, Any]:
    service = _write(request)
    return service.remove([doc_id])


@router.get(
    "/documents/{doc_id:path}",
    summary="A stored document",
    responses=errors(*READ, 400, 404, 413, 422),
)
def get(doc_id: str, request: Request) -> dict[str, Any]:
    """id, key, group, shingles, meta, text."""
    return _read(request).get(doc_id)


@router.get("/groups", summary="Duplicate groups", responses=errors(*READ, 413, 422))
def groups(
    request: Request, min_size: Annotated[int, Query(ge=1, le=1_000_000)] = 2
) -> dict[str, Any]:
    """``{"groups": [...]}``, each as a line of ``neardup index groups --json``."""
    return {"groups": _read(request).groups(min_size)}


@router.get(
    "/stats", summary="Counts, sizes and settings of the collection", responses=errors(*READ, 413)
)
def stats(request: Request) -> dict[str, Any]:
    """The JSON of ``neardup index stats --json`` (``location`` only with the token)."""
    service = _read(request)
    out = service.stats()
    if not token_ok(service.config, token_of(request)):
        out.pop("location", None)
    return out


@router.post(
    "/compare",
    summary="Compare two texts under the collection's spec",
    responses=errors(*READ, *BODY),
)
def compare(body: CompareIn, request: Request) -> dict[str, Any]:
    """The JSON of ``neardup compare A B --json --fragments`` (A's passages taken from B)."""
    out, _ = _read(request).compare(body.a, body.b, fragments=body.fragments, b_id=body.b_id)
    return out


@router.post(
    "/compare/files", summary="Compare two uploaded files", responses=errors(*READ, *BODY, 415)
)
async def compare_files(
    request: Request,
    a: Annotated[UploadFile, File()],
    b: Annotated[UploadFile, File()],
) -> dict[str, Any]:
    """As ``/api/compare``, plus ``"text_a"`` and ``"text_b"``: the extracted texts."""
    service = _read(request)
    text_a, hidden_a = await _upload(service, a)
    text_b, hidden_b = await _upload(service, b)
    out, _ = await asyncio.to_thread(
        service.compare, text_a, text_b, b_id=b.filename or "B", hidden=(hidden_a, hidden_b)
    )
    out["text_a"] = text_a
    out["text_b"] = text_b
    return out


@router.post(
    "/matrix", summary="The similarity matrix of a few texts", responses=errors(*READ, *BODY)
)
def matrix(body: MatrixIn, request: Request) -> dict[str, Any]:
    """The JSON of ``neardup matrix --json``: row i, column j = text i against text j."""
    service = _read(request)
    ids = body.ids if body.ids is not None else [str(i + 1) for i in range(len(body.texts))]
    if len(ids) != len(body.texts):
        raise InputError(f"{len(ids)} ids for {len(body.texts)} texts")
    return service.matrix(ids, body.texts, body.method).to_dict()
