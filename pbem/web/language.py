"""The language of the pages: Flask-Babel picks it per request (the switch's cookie,
else the browser's Accept-Language), pbem.i18n speaks it for the request, and
/language/<code> is the switch. The JSON API and the inbound webhook stay English:
their words are a contract for programs, not prose for players."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, abort, g, redirect, request
from flask.typing import ResponseReturnValue
from flask_babel import Babel, get_locale

from pbem import i18n

bp = Blueprint("language", __name__)
COOKIE = "lang"
ONE_YEAR = 365 * 24 * 3600


def chosen() -> str:
    """The request's language: the switch's cookie, else the browser's best."""
    cookie = request.cookies.get(COOKIE, "")
    if cookie in i18n.LANGUAGES:
        return cookie
    return i18n.best(request.headers.get("Accept-Language"))


def init_app(app: Flask, json_prefixes: tuple[str, ...]) -> None:
    """Flask-Babel for the request's locale and its date filters, the site's and the
    games' catalogs for the words (`_`, `{% trans %}`), and the switch."""
    Babel(app, locale_selector=chosen)
    i18n.install(app.jinja_env)
    app.register_blueprint(bp)

    @app.before_request
    def speak() -> None:
        if request.path.startswith(json_prefixes):
            return
        g.pbem_language = i18n.begin(str(get_locale()))

    @app.teardown_request
    def stop(_error: BaseException | None) -> None:
        token = g.pop("pbem_language", None)
        if token is not None:
            i18n.end(token)

    @app.after_request
    def vary(response: Response) -> Response:
        # static files (the site's and each game's blueprint's) read the same in
        # every language, and may be cached as such
        endpoint = request.endpoint or ""
        if endpoint == "static" or endpoint.endswith(".static"):
            return response
        if not request.path.startswith(json_prefixes):
            response.vary.add("Accept-Language")
            response.vary.add("Cookie")
        response.headers.setdefault("Content-Language", i18n.language())
        return response


@bp.get("/language/<code>")
def switch(code: str) -> ResponseReturnValue:
    """Read the site in `code` from now on (a cookie for a year), back on the page
    the switch was pressed on (`next`, a path of this site only)."""
    if code not in i18n.LANGUAGES:
        abort(404)
    back = request.args.get("next", "/")
    parts = urlsplit(back)
    if parts.scheme or parts.netloc or not back.startswith("/") or back.startswith("//"):
        back = "/"
    if "\\" in back:
        back = "/"
    response = redirect(back, code=303)
    response.set_cookie(
        COOKIE,
        code,
        max_age=ONE_YEAR,
        samesite="Lax",
        httponly=True,
        secure=request.is_secure,
    )
    return response
