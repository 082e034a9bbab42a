"""The Flask app factory: the web over the composition root's parts (pbem.bootstrap
builds them, this module only reads them), CSRF on every form, one blueprint per
feature, and errors as JSON for the API and as pages elsewhere."""

from __future__ import annotations

import hashlib
import hmac
import re
from datetime import timedelta
from importlib.resources import files

from flask import Blueprint, Flask, Response, abort, current_app, render_template, request
from flask.typing import ResponseReturnValue
from flask_wtf.csrf import CSRFError, CSRFProtect
from jinja2 import BaseLoader, ChoiceLoader, FileSystemLoader, PrefixLoader
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from pbem import resources
from pbem.bootstrap import Parts, build
from pbem.games import GAMES
from pbem.games.names import said_bot, said_name
from pbem.i18n import N_
from pbem.i18n import gettext as _
from pbem.mail.inbound import TEMPORARY as UNAVAILABLE
from pbem.service import ServiceError

from . import health, jsonbody, limits, requestid
from .context import parts
from .csp import content_security_policy
from .redact import hide_secrets_in_request_log, redact

csrf = CSRFProtect()
RETRY_AFTER = "30"  # seconds, when the database or the broker is away
JSON_PREFIXES = ("/api/", "/inbound/", *health.PATHS)  # answered in JSON, errors included
# No control character (C0, DEL or C1) in a path, header or form value may reach the
# service: PostgreSQL refuses NUL in text, and none of them is ever meant.
CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# Header values arrive as Latin-1, where UTF-8 bytes may look like C1 controls.
HEADER_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
# A typed move may have several lines (a game's orders, one a line): its field
# keeps a textarea's line breaks, and no other control character.
LINES_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
LINES_FIELDS = ("move",)


def create_app(parts: Parts | None = None) -> Flask:
    """The web app over `parts` (default: built from the settings)."""
    parts = parts or build()
    app = Flask(
        __name__,
        template_folder=str(resources.TEMPLATES),
        static_folder=str(resources.STATIC),
    )
    app.request_class = jsonbody.BoundedRequest
    app.jinja_loader = _templates()
    key = hmac.new(parts.settings.signing_key(), b"flask session", hashlib.sha256).hexdigest()
    app.config.update(
        SECRET_KEY=key,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=parts.settings.base_url.startswith("https://"),
        PERMANENT_SESSION_LIFETIME=timedelta(days=365),
        # Only an answer that changed the session sets its cookie: the pages poll
        # while a player opens another seat's link, and a late answer carrying the
        # cookie as it was would otherwise take the new seat out of the browser.
        SESSION_REFRESH_EACH_REQUEST=False,
        WTF_CSRF_TIME_LIMIT=None,  # a turn may be taken days after the page was opened
        MAX_CONTENT_LENGTH=1_000_000,
    )
    app.extensions["pbem"] = parts
    if parts.settings.trusted_proxies:
        # The client is the address the nearest trusted proxy saw; with no proxy, a
        # client's own X-Forwarded-For is never read.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=parts.settings.trusted_proxies)  # type: ignore[method-assign]
    csrf.init_app(app)
    requestid.init_app(app)

    from . import (
        admin,
        api,
        chat,
        dev,
        feeds,
        games,
        inbound,
        language,
        live,
        mine,
        play,
        push,
        rules,
    )
    from . import table as table_views
    from .opentables import bp as open_bp
    from .profiles import bp as profiles_bp

    language.init_app(app, JSON_PREFIXES)

    csrf.exempt(api.bp)  # bearer tokens, no cookies: nothing to forge
    csrf.exempt(inbound.bp)  # a shared secret, no cookies
    csrf.exempt(health.bp)  # read only, no cookies
    app.register_blueprint(health.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(inbound.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(play.bp)
    app.register_blueprint(mine.bp)
    app.register_blueprint(profiles_bp)
    app.register_blueprint(open_bp)
    app.register_blueprint(chat.bp)
    app.register_blueprint(rules.bp)
    app.register_blueprint(feeds.bp)
    app.register_blueprint(live.bp)
    app.register_blueprint(push.bp)
    csrf.exempt(table_views.api)  # bearer tokens, no cookies: nothing to forge
    app.register_blueprint(table_views.api)
    app.register_blueprint(table_views.bp)
    csrf.exempt(admin.bp)  # checks its forms itself: a script with the admin key sends none
    app.register_blueprint(admin.bp)
    for game in _game_assets():
        app.register_blueprint(game)
    if parts.settings.dev:
        app.register_blueprint(dev.bp)
    limits.init_app(app, parts.settings)
    hide_secrets_in_request_log(app.url_map)
    app.before_request(_refuse_control_characters)
    app.before_request(jsonbody.check_json_body)  # after: a header is read first
    app.after_request(_security_headers)

    @app.errorhandler(ServiceError)
    def refused(error: ServiceError) -> tuple:
        return _refusal(error.message, error.detail, error.status)

    @app.errorhandler(CSRFError)
    def forged(error: CSRFError) -> tuple:
        message = _("this form has expired or did not come from this site: reload the page")
        return _refusal(message, None, 400)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> ResponseReturnValue:
        if error.code is None or error.code < 400:
            return error.get_response()  # a redirect raised as an exception
        given = error.description != type(error).description  # abort(code, "why")
        message = _(WORDS[error.code]) if error.code in WORDS else error.name.lower()
        if given and error.description:
            message = error.description
        if error.code == 429:  # the description is the limit that was reached
            message = _(
                "too many requests from here (%(limit)s); try again later",
                limit=error.description,
            )
        answer = _refusal(message, None, error.code)
        headers = dict(error.get_headers())
        allowed = {k: v for k, v in headers.items() if k in ("Allow", "Retry-After")}
        return (*answer, allowed)

    def unavailable(error: Exception) -> tuple:
        # A part the server needs is away (the database, or the broker): one line in
        # the log, and an answer that says to come back, on every route alike.
        path = redact(request.path, request.method)
        first = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
        current_app.logger.warning(
            "unavailable on %s %s: %s: %s", request.method, path, type(error).__name__, first
        )
        message = _("the server cannot reach its database just now; try again in a minute")
        return (*_refusal(message, None, 503), {"Retry-After": RETRY_AFTER})

    for away in UNAVAILABLE:
        if issubclass(away, Exception):
            app.register_error_handler(away, unavailable)

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> tuple:
        # The log keeps what happened; the answer says nothing of the server's insides.
        path = redact(request.path, request.method)
        current_app.logger.error("unexpected error on %s %s", request.method, path, exc_info=error)
        return _refusal(_("the server failed; try again later"), None, 500)

    app.jinja_env.filters["sentence"] = sentence
    app.jinja_env.filters["said_bot"] = said_bot  # a bot in the page's language
    app.jinja_env.filters["said_name"] = said_name  # a seat's name, a bot's translated

    @app.context_processor
    def site() -> dict:
        settings = parts.settings
        return {
            "dev": settings.dev,
            "live_every": settings.live_poll_seconds,
            "site_name": settings.site_name,
        }

    return app


def _templates() -> BaseLoader:
    """The site's templates, then each game's own under its name ("nim/board.html"),
    read from the game's package (a checkout or an installed wheel alike)."""
    games = {name: FileSystemLoader(str(plugin.templates)) for name, plugin in GAMES.items()}
    return ChoiceLoader([FileSystemLoader(str(resources.TEMPLATES)), PrefixLoader(games)])


def _game_assets() -> list[Blueprint]:
    """One blueprint per game with static files (its turn script), served from the
    game's package under /games/<name>/static/."""
    found = []
    for name, plugin in GAMES.items():
        folder = files(plugin.package).joinpath("static")
        if folder.is_dir():
            found.append(
                Blueprint(
                    f"game_{name}",
                    plugin.package,
                    static_folder=str(folder),
                    static_url_path="/static",
                    url_prefix=f"/games/{name}",
                )
            )
    return found


WORDS = {
    400: N_("this request cannot be read"),
    404: N_("there is no such page"),
    405: N_("this address does not take that method"),
    413: N_("this request is too large"),
    429: N_("too many requests from here; try again later"),
}


def _refusal(message: str, detail: object, status: int) -> tuple:
    """An error as JSON under the API and the inbound webhook, as the error page elsewhere."""
    if request.path.startswith(JSON_PREFIXES):
        return {"error": message, "detail": detail}, status
    return render_template("error.html", message=message), status


def _refuse_control_characters() -> None:
    """Refuse a path, header, query or form value with a control character before a
    view passes it on; a path with one names nothing (404), the rest is unreadable (400)."""
    if CONTROL.search(request.path):
        abort(404)
    for name, value in request.headers.items():
        if HEADER_CONTROL.search(value):
            abort(400, f"the {name} header holds a control character")
    if not request.headers.get("Authorization", "").isascii():
        abort(400, "the Authorization header is ASCII")
    pages_form = MultiDict() if request.path.startswith(JSON_PREFIXES) else request.form
    if any(CONTROL.search(value) for _, value in request.args.items(multi=True)):
        abort(400, "a value holds a control character")
    for name, value in pages_form.items(multi=True):
        found = LINES_CONTROL if name in LINES_FIELDS else CONTROL
        if found.search(value):
            abort(400, "a value holds a control character")


def _security_headers(response: Response) -> Response:
    """Headers that keep every page and answer from being framed, sniffed or leaking
    its address; HSTS once the site is served over https."""
    headers = response.headers
    headers.setdefault("Content-Security-Policy", content_security_policy())
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    if parts().settings.base_url.startswith("https://"):
        headers.setdefault("Strict-Transport-Security", "max-age=31536000")
    return response


def sentence(text: str) -> str:
    """Text with its first letter in upper case (and, unlike `capitalize`, the rest
    untouched: ids keep their capitals)."""
    return text[:1].upper() + text[1:]
