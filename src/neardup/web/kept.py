"""Kept checks on the page and in the API: each check's own page and JSON, the history, removal,
leaving a source out, and the PDF report.

Every check (page or API) is kept under an unguessable id while ``keep_checks_days`` lasts;
the page's ``POST /check`` answers with a redirect (303) to ``/checks/{id}``, so the address can
be sent and Back works. Anyone who may read (the service's read policy) and has the id may open
it. The browser that made a check is known by a cookie of its own (``neardup_owner``, a random
key; the store keeps its digest): its history lists its checks, and it may remove them; a token
holder sees and removes every check.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from neardup.defaults import OFFSET_MAX
from neardup.errors import DamagedCheckError, NeardupError
from neardup.report.check_record import collection_name
from neardup.storage.checks import KeptCheck, owner_digest, valid_id
from neardup.web.auth import (
    OWNER_COOKIE,
    guard_writes,
    owner_key,
    require_csrf,
    require_read,
    token_of,
    token_ok,
)
from neardup.web.i18n import translator
from neardup.web.kept_view import excluded_sources, kept_view, when
from neardup.web.layout import error_in_page, page_language, page_read, render_page
from neardup.web.limits import limit_checks
from neardup.web.responses import READ, errors
from neardup.web.service import Checked, Service
from neardup.web.texts import safe_text

#: Most checks a history lists.
HISTORY = 200

api_router = APIRouter(prefix="/api", tags=["api"], dependencies=[Depends(guard_writes)])
page_router = APIRouter(include_in_schema=False, dependencies=[Depends(guard_writes)])
router = APIRouter()


def _service(request: Request) -> Service:
    return request.app.state.service


def _holder(request: Request) -> bool:
    return token_ok(_service(request).config, token_of(request))


def _owner_key(request: Request) -> str | None:
    return getattr(request.state, "owner_key", None) or owner_key(request)


def _set_owner(request: Request, response: Response, key: str) -> None:
    if request.cookies.get(OWNER_COOKIE) != key:
        days = max(1, _service(request).config.keep_checks_days)
        response.set_cookie(OWNER_COOKIE, key, max_age=days * 86400, httponly=True, samesite="lax")


def _may_remove(request: Request, owner: str) -> bool:
    """Whether this request may remove a check made by ``owner`` (its stored digest)."""
    if _holder(request):
        return True
    key = _owner_key(request)
    return bool(owner) and key is not None and secrets.compare_digest(owner, owner_digest(key))


def _by_owner_cookie(request: Request) -> bool:
    """Whether a removal this request may make rests on the owner cookie alone (no token):
    then the page's form token must come with it."""
    return not _holder(request)


def keep(request: Request, checked: Checked, name: str = "") -> tuple[KeptCheck | None, str]:
    """Keep a check made by this request; the check and the browser's key (new or its own)."""
    key = _owner_key(request) or secrets.token_urlsafe(24)
    kept = _service(request).keep(checked, owner=owner_digest(key), name=safe_text(name))
    return kept, key


def kept_json(
    request: Request, response: Response, checked: Checked, name: str = ""
) -> dict[str, Any]:
    """An API check's JSON with its kept id and addresses (``check_id``, ``check_url``,
    ``pdf_url``) when checks are kept."""
    out = checked.to_dict()
    kept, key = keep(request, checked, name)
    if kept is not None:
        out["check_id"] = kept.id
        out["check_url"] = f"/checks/{kept.id}"
        out["pdf_url"] = f"/api/checks/{kept.id}/pdf"
        _set_owner(request, response, key)
    if checked.exclude:
        out["exclude"] = list(checked.exclude)
    return out


# --- the page -----------------------------------------------------------------------------------
def render_check(
    request: Request,
    text: str,
    record: dict[str, Any],
    *,
    kept: KeptCheck | None = None,
    name: str = "",
) -> Response:
    """The result page of a check from its record (kept or not)."""
    service = _service(request)
    return render_page(
        request,
        "check.html",
        rec=record,
        view=kept_view(text, record, page_language(request)),
        kept=kept,
        created=when(kept.created) if kept is not None else "",
        text="" if kept is not None else text,
        filename=name or None,
        exclude=excluded_sources(service, list(record.get("exclude") or [])),
        may_remove=kept is not None and _may_remove(request, kept.owner),
        collection=collection_name(service.config.db),
        k=service.collection.spec.shingles.k,
    )


def respond_check(request: Request, checked: Checked, name: str = "") -> Response:
    """What the page's ``POST /check`` answers: a redirect to the kept check (303), or the
    result itself when checks are not kept."""
    kept, key = keep(request, checked, name)
    if kept is None:
        return render_check(request, checked.text, checked.record(), name=name)
    response = RedirectResponse(f"/checks/{kept.id}", status_code=303)
    _set_owner(request, response, key)
    return response


def _kept_or_error(request: Request, check_id: str) -> KeptCheck | Response:
    """The kept check, or the page saying there is none (404) or that it is damaged (500,
    with its removal when this request may remove it)."""
    try:
        return _service(request).kept(valid_id(check_id))
    except DamagedCheckError as exc:
        owner = _service(request).kept_owner(check_id)
        return error_in_page(
            request,
            "check.html",
            exc,
            damaged=check_id,
            may_remove=_may_remove(request, owner),
        )
    except NeardupError as exc:
        t = translator(page_language(request))
        said = t["kept_purged"] if exc.code == "kept_gone" else t["kept_missing"]
        return render_page(request, "check.html", status=404, error=said)


@page_router.get("/checks/{check_id}", response_class=HTMLResponse)
def kept_page(request: Request, check_id: str) -> Response:
    if (denied := page_read(request)) is not None:
        return denied
    found = _kept_or_error(request, check_id)
    if isinstance(found, Response):
        return found
    return render_check(request, found.text, found.result, kept=found, name=found.name)


@page_router.post("/checks/{check_id}/exclude", response_class=HTMLResponse)
async def exclude_page(
    request: Request,
    check_id: str,
    exclude: Annotated[str, Form()] = "",
    include: Annotated[str, Form()] = "",
) -> Response:
    """Check the kept text again with a source left out (``exclude``) or taken back
    (``include``); a new kept check."""
    if (denied := page_read(request)) is not None:
        return denied
    found = _kept_or_error(request, check_id)
    if isinstance(found, Response):
        return found
    limit_checks(request, _holder(request))
    left_out = set(found.result.get("exclude") or [])
    if exclude:
        left_out.add(exclude)
    left_out.discard(include)
    service = _service(request)
    try:
        checked = await asyncio.to_thread(
            service.check, found.text, fragments=True, exclude=sorted(left_out)
        )
    except NeardupError as exc:  # the page's language, as every error the page shows
        return error_in_page(request, "check.html", exc)
    return respond_check(request, checked, found.name)


@page_router.get("/checks", response_class=HTMLResponse)
def history_page(request: Request) -> Response:
    if (denied := page_read(request)) is not None:
        return denied
    items = _history(request, limit=HISTORY, offset=0)
    return render_page(
        request,
        "checks.html",
        items=items,
        when=when,
        everyone=_holder(request),
        keeps=_service(request).keeps,
    )


@page_router.post("/checks/{check_id}/delete", response_class=HTMLResponse)
def delete_page(request: Request, check_id: str) -> Response:
    if (denied := page_read(request)) is not None:
        return denied
    service = _service(request)
    try:  # the owner alone: a damaged check can be removed too
        owner = service.kept_owner(valid_id(check_id))
    except NeardupError:
        t = translator(page_language(request))
        return render_page(request, "check.html", status=404, error=t["kept_missing"])
    if not _may_remove(request, owner):
        t = translator(page_language(request))
        return render_page(request, "check.html", status=403, error=t["kept_not_yours"])
    if _by_owner_cookie(request):
        require_csrf(request)
    service.forget(check_id)
    return RedirectResponse("/checks", status_code=303)


@page_router.get("/checks/{check_id}/pdf")
def pdf_page(request: Request, check_id: str) -> Response:
    if (denied := page_read(request)) is not None:
        return denied
    found = _kept_or_error(request, check_id)
    if isinstance(found, Response):
        return found
    return _pdf(request, found, page_language(request))


def _pdf(request: Request, kept: KeptCheck, lang: str) -> Response:
    from neardup.report.pdf import check_pdf

    service = _service(request)
    data = check_pdf(
        kept.text,
        kept.result,
        created=kept.created,
        collection=collection_name(service.config.db),
        spec=kept.spec,
        name=kept.name,
        lang=lang,
        # from the configured public URL only: the Host header is the client's to say
        link=f"{service.config.public_url}/checks/{kept.id}" if service.config.public_url else "",
    )
    return Response(
        data,
        media_type="application/pdf",
        headers={"content-disposition": f'attachment; filename="neardup-check-{kept.id}.pdf"'},
    )


def _history(request: Request, *, limit: int, offset: int) -> list[Any]:
    service = _service(request)
    if _holder(request):
        return service.kept_list(owner=None, limit=limit, offset=offset)
    key = _owner_key(request)
    if key is None:
        return []
    return service.kept_list(owner=owner_digest(key), limit=limit, offset=offset)


# --- the API ------------------------------------------------------------------------------------
def _read(request: Request) -> Service:
    service = _service(request)
    require_read(service.config, token_of(request))
    return service


@api_router.get(
    "/checks",
    summary="Kept checks: all (token holder) or this client's own",
    responses=errors(*READ, 413, 422),
)
def api_history(
    request: Request,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=OFFSET_MAX)] = 0,
) -> dict[str, Any]:
    """Newest first: ``{"checks": [{"id", "created", "name", "uniqueness", "preview"}]}``.
    A token holder gets every kept check; anyone else those made with its ``neardup_owner``
    cookie. A check whose stored row is damaged is listed with ``"damaged": true`` (what
    could not be read given as 0 or empty), so that it can be removed."""
    _read(request)
    return {"checks": [s.to_dict() for s in _history(request, limit=limit, offset=offset)]}


@api_router.get(
    "/checks/{check_id}/pdf",
    summary="A kept check as a PDF report",
    response_class=Response,
    responses={
        200: {"content": {"application/pdf": {}}},
        **errors(*READ, 400, 404, 413, 422, 500),
    },
)
def api_pdf(request: Request, check_id: str, lang: str = "ru") -> Response:
    service = _read(request)
    kept = service.kept(valid_id(check_id))
    return _pdf(request, kept, lang if lang in ("ru", "en") else "ru")


# ``:path``, so that an id holding a slash is refused (400) rather than sent elsewhere (405)
@api_router.get(
    "/checks/{check_id:path}",
    summary="A kept check: its text and result",
    responses=errors(*READ, 400, 404, 413, 422, 500),
)
def api_kept(request: Request, check_id: str) -> dict[str, Any]:
    """``{"id", "created", "name", "spec", "text", "result"}``: ``result`` is the check's JSON
    with the passages, each source's text and ``source_info`` (title, url)."""
    service = _read(request)
    return service.kept(valid_id(check_id)).to_dict()


@api_router.delete(
    "/checks/{check_id:path}",
    summary="Remove a kept check",
    responses=errors(*READ, 400, 403, 404, 405, 413, 422),
)
def api_delete(request: Request, check_id: str) -> dict[str, Any]:
    """A token holder removes any check; anyone else only those made with its cookie (403).
    A damaged check is removed as any other: only its owner is read."""
    service = _read(request)
    if check_id.endswith("/pdf"):  # the report's address: read only
        raise StarletteHTTPException(405, "Method Not Allowed", {"Allow": "GET, HEAD, OPTIONS"})
    owner = service.kept_owner(valid_id(check_id))
    if not _may_remove(request, owner):
        raise StarletteHTTPException(403, "this check was made by another client")
    return {"removed": service.forget(check_id)}


router.include_router(api_router)
router.include_router(page_router)
