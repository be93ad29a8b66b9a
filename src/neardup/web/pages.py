"""The page: server-rendered templates (Jinja2, autoescaped), one small script of our own.

Every form works without JavaScript (a plain POST renders the result); with it, uploads show
their progress and clicking a passage brings its source beside the text.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from neardup.analysis.tricks import NONE, Tricks
from neardup.errors import InputError, NeardupError
from neardup.score.matrix import METHODS
from neardup.web.auth import require_read, require_write, token_of, token_ok, wrong_token
from neardup.web.forms import LimitedRoute
from neardup.web.http_errors import hide_location, status_of
from neardup.web.i18n import (
    LANGUAGES,
    choose_language,
    reason_text,
    translate_error,
    translator,
)
from neardup.web.i18n import plural as plural_of
from neardup.web.i18n import size as size_of
from neardup.web.listing import documents_page
from neardup.web.render import (
    aligned_view,
    heat_colour,
    number_filter,
    plural_filter,
    reason_filter,
    size_filter,
    text_colour,
    word_filter,
)
from neardup.web.service import UPLOAD_SUFFIXES, Service, upload, upload_text

router = APIRouter(include_in_schema=False, route_class=LimitedRoute)
templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
templates.env.globals.update(
    heat_colour=heat_colour,
    text_colour=text_colour,
    quote=quote,
    plural=plural_filter,
    word=word_filter,
    number=number_filter,
    size=size_filter,
    reason_text=reason_filter,
)
templates.env.filters.update(number=number_filter)

ACCEPT = ",".join(UPLOAD_SUFFIXES)


def _service(request: Request) -> Service:
    return request.app.state.service


def _lang(request: Request) -> str:
    return choose_language(
        request.query_params.get("lang"),
        request.cookies.get("lang"),
        request.headers.get("accept-language"),
    )


def _render(request: Request, name: str, status: int = 200, **context: Any) -> Response:
    lang = _lang(request)
    service = _service(request)
    config = service.config
    t = translator(lang)
    size = size_of(config.max_body, lang)
    t["too_large_before"] = t["too_large_before"].format(size=size)
    base: dict[str, Any] = {
        "lang": lang,
        "t": t,
        "languages": LANGUAGES,
        "path": request.url.path,
        "writes": bool(config.token),
        "accept": ACCEPT,
        "max_body": config.max_body,
        "max_text": config.max_text,
        "max_matrix": config.max_matrix,
        "limits": t["limits"].format(
            chars=plural_of(config.max_text, "character", lang), size=size
        ),
    }
    response = templates.TemplateResponse(request, name, {**base, **context}, status_code=status)
    chosen = request.query_params.get("lang")
    if chosen in LANGUAGES:
        response.set_cookie("lang", chosen, max_age=365 * 86400, samesite="strict")
    return response


def _page_read(request: Request) -> Response | None:
    """A token form instead of the page when reads need a token the request lacks."""
    service = _service(request)
    try:
        require_read(service.config, token_of(request))
    except StarletteHTTPException as exc:
        return _render(request, "token.html", status=exc.status_code, error=_says(request, exc))
    return None


def _says(request: Request, exc: BaseException, message: str | None = None) -> str:
    """An error as the page says it: in the page's language, without the collection's
    location for a reader without the token."""
    if message is None:
        message = str(exc.detail) if isinstance(exc, StarletteHTTPException) else str(exc)
    if not message:
        return translator(_lang(request))["empty_input"]
    return translate_error(exc, _lang(request), hide_location(request, message))


def error_page(request: Request, status: int, exc: BaseException, message: str) -> Response:
    """An error outside a form's page (an unknown path, a request too large to read…) as an
    HTML page in the page's language."""
    return _render(request, "error.html", status=status, error=_says(request, exc, message))


async def _text_or_file(service: Service, text: str, file: UploadFile | None) -> tuple[str, Tricks]:
    """The text given or read from the file, and the text hidden in the file (issue 24)."""
    if file is not None and file.filename:
        data = await file.read()
        extracted, hidden = await asyncio.to_thread(upload, data, file.filename)
        return service.limit_text(extracted, f"the text of {file.filename!r}"), hidden
    if text.strip():
        return service.limit_text(text), NONE
    raise InputError("")


def _error(request: Request, name: str, exc: NeardupError, **context: Any) -> Response:
    return _render(request, name, status=status_of(exc), error=_says(request, exc), **context)


@router.get("/", response_class=HTMLResponse)
def check_form(request: Request) -> Response:
    return _page_read(request) or _render(request, "check.html")


@router.post("/check", response_class=HTMLResponse)
async def check_page(
    request: Request,
    text: Annotated[str, Form()] = "",
    file: Annotated[UploadFile | None, File()] = None,
    exclude: Annotated[list[str] | None, Form()] = None,
) -> Response:
    """Check, keep and redirect to the kept check (:mod:`neardup.web.kept`)."""
    from neardup.web.kept import respond_check

    if (denied := _page_read(request)) is not None:
        return denied
    service = _service(request)
    try:
        given, hidden = await _text_or_file(service, text, file)
        left_out = [e for e in exclude or [] if e]
        checked = await asyncio.to_thread(
            service.check, given, fragments=True, exclude=left_out, hidden=hidden
        )
    except NeardupError as exc:
        return _error(request, "check.html", exc, text=text)
    name = file.filename if file is not None and file.filename else ""
    return respond_check(request, checked, name)


@router.get("/compare", response_class=HTMLResponse)
def compare_form(request: Request) -> Response:
    return _page_read(request) or _render(request, "compare.html")


@router.post("/compare", response_class=HTMLResponse)
async def compare_page(
    request: Request,
    text_a: Annotated[str, Form()] = "",
    text_b: Annotated[str, Form()] = "",
    file_a: Annotated[UploadFile | None, File()] = None,
    file_b: Annotated[UploadFile | None, File()] = None,
) -> Response:
    if (denied := _page_read(request)) is not None:
        return denied
    service = _service(request)
    try:
        a, hidden_a = await _text_or_file(service, text_a, file_a)
        b, hidden_b = await _text_or_file(service, text_b, file_b)
        out, compared = await asyncio.to_thread(
            service.compare, a, b, fragments=True, hidden=(hidden_a, hidden_b)
        )
    except NeardupError as exc:
        return _error(request, "compare.html", exc, text_a=text_a, text_b=text_b)
    alignment = compared.alignment
    assert alignment is not None  # fragments were asked for
    view = aligned_view(alignment, _lang(request))
    return _render(
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
    group: Annotated[int | None, Query()] = None,
) -> Response:
    return _page_read(request) or _collection(request, q=q, page=page, group=group)


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
    return _render(
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
    t = translator(_lang(request))
    typed: dict[str, Any] = {"add_id": id, "add_text": text, "add_policy": policy}  # kept
    try:
        require_write(service.config, token_of(request, token or None))
    except StarletteHTTPException as exc:
        return _collection(request, status=exc.status_code, error=_says(request, exc), **typed)
    try:
        doc_id = id.strip() or (file.filename if file is not None and file.filename else "")
        if not doc_id:
            raise InputError("a document id must not be empty", code="empty_id")
        given, _ = await _text_or_file(service, text, file)
        summary = await asyncio.to_thread(service.add, [(doc_id, given, {})], policy=policy or None)
    except NeardupError as exc:
        return _collection(request, status=status_of(exc), error=_says(request, exc), **typed)
    decision = summary["decisions"][0]
    key = "added" if decision["accepted"] else "refused"
    detail = decision.get("detail")  # a length refusal says the length and the range
    reason = reason_text(decision["reason"], detail, _lang(request))
    message = t[key].format(id=doc_id, reason=reason)
    return _collection(request, message=message)


@router.get("/doc/{doc_id:path}", response_class=HTMLResponse)
def document_page(request: Request, doc_id: str) -> Response:
    if (denied := _page_read(request)) is not None:
        return denied
    try:
        doc = _service(request).get(doc_id)
    except NeardupError as exc:
        return _render(
            request, "document.html", status=status_of(exc), error=_says(request, exc), doc=None
        )
    return _render(request, "document.html", doc=doc)


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
        return _render(
            request,
            "document.html",
            status=exc.status_code,
            error=_says(request, exc),
            doc=_maybe(service, id),
        )
    except NeardupError as exc:
        return _render(
            request,
            "document.html",
            status=status_of(exc),
            error=_says(request, exc),
            doc=_maybe(service, id),
        )
    message = translator(_lang(request))["removed"].format(id=id)
    return _collection(request, message=message)


def _maybe(service: Service, doc_id: str) -> dict[str, Any] | None:
    try:
        return service.get(doc_id)
    except NeardupError:
        return None


@router.get("/matrix", response_class=HTMLResponse)
def matrix_form(request: Request) -> Response:
    return _page_read(request) or _render(request, "matrix.html", methods=METHODS)


@router.post("/matrix", response_class=HTMLResponse)
async def matrix_page(
    request: Request,
    texts: Annotated[str, Form()] = "",
    method: Annotated[str, Form()] = "containment",
    files: Annotated[list[UploadFile] | None, File()] = None,
) -> Response:
    if (denied := _page_read(request)) is not None:
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
                bodies.append(await asyncio.to_thread(upload_text, data, upload.filename))
        result = await asyncio.to_thread(service.matrix, ids, bodies, method)
    except NeardupError as exc:
        return _error(request, "matrix.html", exc, methods=METHODS, texts=texts, method=method)
    return _render(
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
    """Remember the token in a cookie (same site only) when reads need one."""
    service = _service(request)
    if not token_ok(service.config, token):
        return _render(request, "token.html", status=401, error=_says(request, wrong_token()))
    response = RedirectResponse("/", status_code=303)
    response.set_cookie("neardup_token", token, httponly=True, samesite="strict")
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
