"""The Flask app factory: the composition root's parts, CSRF on every form, one
blueprint per feature, and errors as JSON for the API and as pages elsewhere."""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta

from flask import Flask, current_app, render_template, request
from flask_wtf.csrf import CSRFError, CSRFProtect

from pbem.bootstrap import Parts, build
from pbem.config import PROJECT
from pbem.service import ServiceError

csrf = CSRFProtect()


def create_app(parts: Parts | None = None) -> Flask:
    """The web app over `parts` (default: built from the settings)."""
    parts = parts or build()
    app = Flask(
        __name__,
        template_folder=str(PROJECT / "templates"),
        static_folder=str(PROJECT / "static"),
    )
    key = hmac.new(parts.settings.signing_key(), b"flask session", hashlib.sha256).hexdigest()
    app.config.update(
        SECRET_KEY=key,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=parts.settings.base_url.startswith("https://"),
        PERMANENT_SESSION_LIFETIME=timedelta(days=365),
        WTF_CSRF_TIME_LIMIT=None,  # a turn may be taken days after the page was opened
        MAX_CONTENT_LENGTH=1_000_000,
    )
    app.extensions["pbem"] = parts
    csrf.init_app(app)
    if parts.settings.broker_url:
        from worker.app import celery_init_app, notifier

        parts.service.notify = notifier(celery_init_app(app, parts.settings))

    from . import api, dev, games, inbound, mine, play

    csrf.exempt(api.bp)  # bearer tokens, no cookies: nothing to forge
    csrf.exempt(inbound.bp)  # a shared secret, no cookies
    app.register_blueprint(api.bp)
    app.register_blueprint(inbound.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(play.bp)
    app.register_blueprint(mine.bp)
    if parts.settings.dev:
        app.register_blueprint(dev.bp)

    @app.errorhandler(ServiceError)
    def refused(error: ServiceError) -> tuple:
        if request.path.startswith("/api/"):
            return {"error": error.message, "detail": error.detail}, error.status
        return render_template("error.html", message=error.message), error.status

    @app.errorhandler(CSRFError)
    def forged(error: CSRFError) -> tuple:
        message = "this form has expired or did not come from this site: reload the page"
        return render_template("error.html", message=message), 400

    @app.errorhandler(404)
    def missing(error: Exception) -> tuple:
        if request.path.startswith("/api/"):
            return {"error": "not found", "detail": None}, 404
        return render_template("error.html", message="there is no such page"), 404

    app.jinja_env.filters["sentence"] = sentence

    @app.context_processor
    def site() -> dict:
        return {"dev": parts.settings.dev}

    return app


def sentence(text: str) -> str:
    """Text with its first letter in upper case (and, unlike `capitalize`, the rest
    untouched: tile ids stay upper case)."""
    return text[:1].upper() + text[1:]


def parts() -> Parts:
    """The composition root's parts of the running app."""
    return current_app.extensions["pbem"]
