"""The page: server-rendered templates (Jinja2, autoescaped), one small script of our own.

Every form works without JavaScript (a plain POST renders the result); with it, uploads show
their progress and clicking a passage brings its source beside the text.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from neardup.analysis.tricks import NONE, Tricks
from neardup.defaults import OFFSET_MAX
from neardup.errors import InputError, NeardupError
from neardup.score.matrix import METHODS
from neardup.web.auth import (
    LOGIN_COOKIE,
    guard_writes,
    login_cookie,
    require_write,
    token_of,
    token_ok,
    wrong_token,
)
from neardup.web.forms import LimitedRoute
from neardup.web.http_errors import status_of
from neardup.web.i18n import (
    reason_text,
    translator,
)
from neardup.web.layout import (
    error_in_page,
    page_language,
    page_read,
    render_page,
    says,
)
from neardup.web.limits import limit_checks
from neardup.web.listing import documents_page
from neardup.web.progress import PROGRESS
from neardup.web.render import (
    aligned_view,
)
from neardup.web.service import Service, upload, upload_name, upload_text

router = APIRouter(
    include_in_schema=False, route_class=LimitedRoute, dependencies=[Depends(guard_writes)]
)


def _service(request: Request) -> Service:
    return request.app.state.service


async def _text_or_file(service: Service, text: str, file: UploadFile | None) -> tuple[str, Tricks]:
    """The text given or read from the file, and the text hidden in the file (hidden-text
    evasion)."""
    if file is not None and file.filename:
        data = await file.read()
        name = upload_name(file.filename, file.content_type, data)
        extracted, hidden = await asyncio.to_thread(upload, data, name)
        return service.limit_text(extracted, f"the text of {file.filename!r}"), hidden
    if text.strip():
        return service.limit_text(text), NONE
    raise InputError("")


@router.get("/", response_class=HTMLResponse)
def check_form(request: Request) -> Response:
    return page_read(request) or render_page(request, "check.html")


@router.post("/check", response_class=HTMLResponse)
async def check_page(
    request: Request,
    text: Annotated[str, Form()] = "",
    file: Annotated[UploadFile | None, File()] = None,
    exclude: Annotated[list[str] | None, Form()] = None,
    progress: Annotated[str, Form()] = "",
) -> Response:
    """Check, keep and redirect to the kept check (:mod:`neardup.web.kept`); ``progress``: the
    page script's ticket, whose stages ``GET /progress/{ticket}`` tells."""
    from neardup.web.kept import respond_check

    if (denied := page_read(request)) is not None:
        return denied
    service = _service(request)
    limit_checks(request, token_ok(service.config, token_of(request)))
    stage = PROGRESS.stage(progress)
    try:
        stage("reading")
        given, hidden = await _text_or_file(service, text, file)
        left_out = [e for e in exclude or [] if e]
        checked = await asyncio.to_thread(
            service.check, given, fragments=True, exclude=left_out, hidden=hidden, on_stage=stage
        )
    except NeardupError as exc:
        return error_in_page(request, "check.html", exc, text=text)
    stage("keeping")
    name = file.filename if file is not None and file.filename else ""
    return respond_check(request, checked, name)


@router.get("/progress/{ticket}")
def progress_of(ticket: str) -> dict[str, object]:
    """The stage a check sent from the page has reached: ``{"stage", "step", "steps"}``."""
    return PROGRESS.of(ticket)


@router.get("/compare", response_class=HTMLResponse)
def compare_form(request: Request) -> Response:
    return page_read(request) or render_page(request, "compare.html")


@router.post("/compare", response_class=HTMLResponse)
async def compare_page(
    request: Request,
    text_a: Annotated[str, Form()] = "",
    text_b: Annotated[str, Form()] = "",
    file_a: Annotated[UploadFile | None, File()] = None,
    file_b: Annotated[UploadFile | None, File()] = None,
) -> Response:
    if (denied := page_read(request)) is not None:
        return denied
    service = _service(request)
    try:
        a, hidden_a = await _text_or_file(service, text_a, file_a)
        b, hidden_b = await _text_or_file(service, text_b, file_b)
        out, compared = await asyncio.to_thread(
            service.compare, a, b, fragments=True, hidden=(hidden_a, hidden_b)
        )
    except NeardupError as exc:
        return error_in_page(request, "compare.html", exc, text_a=text_a, text_b=text_b)
    alignment = compared.alignment
    assert alignment is not None  # fragments were asked for
    view = aligned_view(alignment, page_language(request))
    return render_page(
        request,
        "compare.html",
        result=out,
        view=view,
        tricks_a=compared.tricks_a,
        tricks_b=compared.tricks_b,
        alignment=alignment,
        text_a=text_a,
        text_b=text_b,
    )


PER_PAGE = 50


@router.get("/collection", response_class=HTMLResponse)
def collection_page(
    request: Request,
    q: Annotated[str, Query(max_length=1000)] = "",
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    group: Annotated[int | None, Query(ge=0, le=OFFSET_MAX)] = None,
) -> Response:
    return page_read(request) or _collection(request, q=q, page=page, group=group)


def _collection(
    request: Request,
    status: int = 200,
    *,
    q: str = "",
    page: int = 1,
    group: int | None = None,
    **context: Any,
) -> Response:
    service = _service(request)
    stats = service.stats()
    stats.pop("location", None)
    groups = service.groups(2)
    listed = documents_page(service, q=q, page=page, per_page=PER_PAGE, group=group)
    shown_group = next((g for g in groups if g["id"] == group), None) if group else None
    return render_page(
        request,
        "collection.html",
        status=status,
        stats=stats,
        groups=groups[:200] if group is None else [],
        more_groups=max(0, len(groups) - 200) if group is None else 0,
        group=group,
        shown_group=shown_group,
        listed=listed,
        q=q,
        policies=("reject", "group", "allow"),
        **context,
    )


@router.post("/collection/add", response_class=HTMLResponse)
async def add_page(
    request: Request,
    id: Annotated[str, Form()] = "",
    text: Annotated[str, Form()] = "",
    policy: Annotated[str, Form()] = "",
    token: Annotated[str, Form()] = "",
    file: Annotated[UploadFile | None, File()] = None,
) -> Response:
    service = _service(request)
    t = translator(page_language(request))
    typed: dict[str, Any] = {"add_id": id, "add_text": text, "add_policy": policy}  # kept
    try:
        require_write(service.config, token_of(request, token or None))
    except StarletteHTTPException as exc:
        return _collection(request, status=exc.status_code, error=says(request, exc), **typed)
    try:
        doc_id = id.strip() or (file.filename if file is not None and file.filename else "")
        if not doc_id:
            raise InputError("a document id must not be empty", code="empty_id")
        given, _ = await _text_or_file(service, text, file)
        summary = await asyncio.to_thread(service.add, [(doc_id, given, {})], policy=policy or None)
    except NeardupError as exc:
        return _collection(request, status=status_of(exc), error=says(request, exc), **typed)
    decision = summary["decisions"][0]
    key = "added" if decision["accepted"] else "refused"
    detail = decision.get("detail")  # a length refusal says the length and the range
    reason = reason_text(decision["reason"], detail, page_language(request))
    message = t[key].format(id=doc_id, reason=reason)
    return _collection(request, message=message)


@router.get("/doc/{doc_id:path}", response_class=HTMLResponse)
def document_page(request: Request, doc_id: str) -> Response:
    if (denied := page_read(request)) is not None:
        return denied
    try:
        doc = _service(request).get(doc_id)
    except NeardupError as exc:
        return render_page(
            request, "document.html", status=status_of(exc), error=says(request, exc), doc=None
        )
    return render_page(request, "document.html", doc=doc)


@router.post("/doc-remove", response_class=HTMLResponse)
def remove_page(
    request: Request,
    id: Annotated[str, Form()] = "",
    token: Annotated[str, Form()] = "",
) -> Response:
    service = _service(request)
    try:
        require_write(service.config, token_of(request, token or None))
        service.remove([id])
    except StarletteHTTPException as exc:
        return render_page(
            request,
            "document.html",
            status=exc.status_code,
            error=says(request, exc),
            doc=_maybe(service, id),
        )
    except NeardupError as exc:
        return render_page(
            request,
            "document.html",
            status=status_of(exc),
            error=says(request, exc),
            doc=_maybe(service, id),
        )
    message = translator(page_language(request))["removed"].format(id=id)
    return _collection(request, message=message)


def _maybe(service: Service, doc_id: str) -> dict[str, Any] | None:
    try:
        return service.get(doc_id)
    except NeardupError:
        return None


@router.get("/matrix", response_class=HTMLResponse)
def matrix_form(request: Request) -> Response:
    return page_read(request) or render_page(request, "matrix.html", methods=METHODS)


@router.post("/matrix", response_class=HTMLResponse)
async def matrix_page(
    request: Request,
    texts: Annotated[str, Form()] = "",
    method: Annotated[str, Form()] = "containment",
    files: Annotated[list[UploadFile] | None, File()] = None,
) -> Response:
    if (denied := page_read(request)) is not None:
        return denied
    service = _service(request)
    ids: list[str] = []
    bodies: list[str] = []
    try:
        for number, chunk in enumerate(_split(texts), start=1):
            ids.append(f"#{number}")
            bodies.append(chunk)
        for upload in files or []:
            if upload.filename:
                data = await upload.read()
                ids.append(upload.filename)
                name = upload_name(upload.filename, upload.content_type, data)
                bodies.append(await asyncio.to_thread(upload_text, data, name))
        result = await asyncio.to_thread(service.matrix, ids, bodies, method)
    except NeardupError as exc:
        return error_in_page(
            request, "matrix.html", exc, methods=METHODS, texts=texts, method=method
        )
    return render_page(
        request, "matrix.html", methods=METHODS, result=result, texts=texts, method=method
    )


def _split(texts: str) -> list[str]:
    chunks: list[list[str]] = [[]]
    for line in texts.splitlines():
        if line.strip() == "---":
            chunks.append([])
        else:
            chunks[-1].append(line)
    return [text for text in ("\n".join(c).strip() for c in chunks) if text]


@router.post("/token", response_class=HTMLResponse)
def token_page(request: Request, token: Annotated[str, Form()] = "") -> Response:
    """Remember a login in a cookie (same site only, never the token itself) when reads
    need the token."""
    service = _service(request)
    if not token_ok(service.config, token):
        return render_page(request, "token.html", status=401, error=says(request, wrong_token()))
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(LOGIN_COOKIE, login_cookie(token), httponly=True, samesite="strict")
    return response


# A GET on a form's target (Back or a reload after a submit without JavaScript) goes to the form.
_FORMS = {
    "/check": "/",
    "/collection/add": "/collection",
    "/doc-remove": "/collection",
    "/token": "/",
}


@router.get("/check", response_class=HTMLResponse)
@router.get("/collection/add", response_class=HTMLResponse)
@router.get("/doc-remove", response_class=HTMLResponse)
@router.get("/token", response_class=HTMLResponse)
def form_target(request: Request) -> Response:
    return RedirectResponse(_FORMS[request.url.path], status_code=303)
