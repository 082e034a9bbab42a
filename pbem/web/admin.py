"""The operator's page, /admin: games stuck past their deadline, mails given up on
(each with a Retry button), the sweeps, the processes' heartbeats and the seats a bot
took over. Only with an admin key configured (else every address under /admin is
404): a browser signs in with the key (a form, rate limited) and holds a flag in its
signed session cookie for SIGNED_IN; a script sends `Authorization: Bearer KEY`."""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime, timedelta

from flask import Blueprint, abort, flash, redirect, render_template, request, session, url_for
from flask.typing import ResponseReturnValue
from flask_wtf.csrf import CSRFError, validate_csrf

from pbem.events import parse_timestamp, timestamp
from pbem.i18n import gettext as _
from pbem.service import admin

from .bearer import bearer_is
from .context import parts

bp = Blueprint("admin", __name__, url_prefix="/admin")
SIGNED_IN = timedelta(hours=12)  # how long a browser's sign-in lasts
PAGED = ("stuck", "failed", "replaced")  # the sections paged with ?<name>=N


def _key() -> str:
    return parts().settings.admin_key


def _now() -> datetime:
    return parts().service.clock()


def _fingerprint() -> str:
    """What the session holds of the key: a new key ends every sign-in."""
    secret = parts().settings.signing_key()
    return hmac.new(secret, b"admin|" + _key().encode(), hashlib.sha256).hexdigest()[:32]


def _by_script() -> bool:
    return bearer_is(_key())


def _signed_in() -> bool:
    if _by_script():
        return True
    held = session.get("admin")
    if not isinstance(held, dict) or not isinstance(held.get("until"), str):
        return False
    if not hmac.compare_digest(str(held.get("key", "")), _fingerprint()):
        return False
    try:
        return parse_timestamp(held["until"]) > _now()
    except ValueError:
        return False


def _check_form() -> None:
    """The form's CSRF token (the blueprint is exempt from the site-wide check so that
    a script with the key in its bearer header needs none: it sends no cookie)."""
    if _by_script():
        return
    try:
        validate_csrf(request.form.get("csrf_token"))
    except ValueError as error:  # wtforms' ValidationError
        raise CSRFError(str(error)) from None


@bp.before_request
def only_with_a_key() -> ResponseReturnValue | None:
    if not _key():
        abort(404)
    if request.endpoint in ("admin.sign_in_form", "admin.sign_in"):
        return None
    if not _signed_in():
        return redirect(url_for("admin.sign_in_form"), code=303)
    return None


@bp.get("/sign-in")
def sign_in_form() -> ResponseReturnValue:
    if _signed_in():
        return redirect(url_for("admin.overview"), code=303)
    return render_template("admin_sign_in.html")


@bp.post("/sign-in")
def sign_in() -> ResponseReturnValue:
    """The key typed into the form (limits.LIMITED counts the tries)."""
    _check_form()
    given = request.form.get("key", "")
    if not hmac.compare_digest(given.encode(), _key().encode()):
        message = _("That is not the admin key.")
        return render_template("admin_sign_in.html", refused=message), 403
    session["admin"] = {"until": timestamp(_now() + SIGNED_IN), "key": _fingerprint()}
    return redirect(url_for("admin.overview"), code=303)


@bp.post("/sign-out")
def sign_out() -> ResponseReturnValue:
    _check_form()
    session.pop("admin", None)
    flash(_("Signed out of the admin page."))
    return redirect(url_for("admin.sign_in_form"), code=303)


def _page(name: str) -> int:
    try:
        page = int(request.args.get(name, "0"))
    except ValueError:
        abort(400, _("a page number is a whole number"))
    if not 0 <= page <= 10_000:
        abort(400, _("a page number is a whole number"))
    return page


@bp.get("")
def overview() -> ResponseReturnValue:
    db, settings, now = parts().database, parts().settings, _now()
    pages = {name: _page(name) for name in PAGED}
    return render_template(
        "admin.html",
        now=now,
        listed=admin.LISTED,
        pages=pages,
        stuck=admin.stuck_games(db, now, settings.sweep_seconds, page=pages["stuck"]),
        failed=admin.failed_mails(db, page=pages["failed"]),
        replaced=admin.replaced_seats(db, page=pages["replaced"]),
        sweeps=admin.sweeps(db),
        skipping=admin.skipping_sweeps(db),
        processes=admin.processes(db),
        sweep_seconds=settings.sweep_seconds,
        unsigned=admin.unsigned,
    )


@bp.post("/mail/<int:number>/retry")
def retry(number: int) -> ResponseReturnValue:
    """A failed mail pending again, with the same Message-ID (refused for any other)."""
    _check_form()
    admin.retry_mail(parts().database, number, _now())
    flash(_("Mail %(id)s is pending again: the next sweep sends it.", id=number))
    return redirect(url_for("admin.overview") + "#failed", code=303)
