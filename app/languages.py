"""Choosing the language (docs/translating.md), and the pages' catalogues:

- every request is answered in its language (`Languages`, the middleware: the cookie,
  else Accept-Language, else English: app/i18n.py's `choose`), and its pages say so
  (`<html lang>`, `Content-Language`);
- `POST /lang` (the header's English / Français): the choice kept in the `piquet_lang`
  cookie, and back to the page it was made on;
- `GET /i18n/{lang}.json?v=VERSION`: a language's catalogue for the pages' scripts, cached
  for good under its version (the pages ask for the current one); unknown: 404.
"""

from __future__ import annotations

from http.cookies import SimpleCookie
from typing import Annotated

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import i18n

router = APIRouter()

CATALOGUE_CACHE = "public, max-age=31536000, immutable"


def request_language(scope: Scope) -> str:
    """The language a request (or a socket's handshake) is to be answered in."""
    headers = dict(scope.get("headers") or [])
    cookie = None
    raw = headers.get(b"cookie")
    if raw:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(raw.decode("latin-1"))
        except Exception:  # (a cookie header we cannot read: as if none)
            jar = SimpleCookie()
        if i18n.COOKIE in jar:
            cookie = jar[i18n.COOKIE].value
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    return i18n.choose(cookie, accept)


class Languages:
    """The middleware: each HTTP request in its language (app/i18n.py's current one), and
    a page's answer says which (`Content-Language`; `Vary`, as it depends on them)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        code = request_language(scope)
        token = i18n.use(code)

        async def send_language(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []),
                                      (b"content-language", code.encode()),
                                      (b"vary", b"Cookie, Accept-Language")]
            await send(message)

        try:
            await self.app(scope, receive, send_language)
        finally:
            i18n.reset(token)


def _local(path: str) -> str:
    """A path on this site to go back to, or the lobby: never another site's address."""
    if not path.startswith("/") or path.startswith("//") or "\\" in path:
        return "/"
    return path


@router.post("/lang", response_model=None)
async def choose_language(request: Request, lang: Annotated[str, Form()],
                          next: Annotated[str, Form()] = "/") -> Response:
    """The header's choice of language: kept in a cookie for a year, and back to `next`
    (a path on this site) in it."""
    if lang not in i18n.languages():
        return JSONResponse({"detail": i18n._("There is no such language here.")}, 404)
    response = RedirectResponse(_local(next), status_code=303)
    response.set_cookie(i18n.COOKIE, lang, max_age=i18n.COOKIE_AGE, path="/",
                        samesite="lax", secure=request.url.scheme == "https")
    return response


@router.get("/i18n/{name}", response_model=None)
async def catalogue(name: str, v: str = "") -> Response:
    """A language's catalogue for the pages' scripts (`Language.catalogue`)."""
    code, dot, kind = name.partition(".")
    known = i18n.languages().get(code)
    if known is None or (dot, kind) != (".", "json"):
        return JSONResponse({"detail": "No such language."}, 404)
    # The version asked for is the current one: cached for good. Else (an old page):
    # the current catalogue, asked again next time.
    cache = CATALOGUE_CACHE if v == known.version else "no-cache"
    return Response(known.catalogue, media_type="application/json",
                    headers={"Cache-Control": cache, "ETag": f'"{known.version}"'})
