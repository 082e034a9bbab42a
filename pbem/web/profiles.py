"""Public profiles: a signed-in person turns theirs on or off from My games, and
anyone reads it at /players/SLUG (404 once it is off)."""

from __future__ import annotations

from flask import Blueprint, abort, flash, make_response, redirect, render_template, request
from werkzeug import Response

from pbem.i18n import gettext as _
from pbem.service import Forbidden

from .context import parts
from .mine import signed_in_address

bp = Blueprint("profiles", __name__)


def _address() -> str:
    address = signed_in_address()
    if address is None:
        raise Forbidden(_("sign in on My games first: a profile is of the address you play with"))
    return address


@bp.post("/my-games/profile")
def publish() -> Response:
    """Turn this address's public profile on, or rename it."""
    parts().service.publish_profile(_address(), request.form.get("name", ""))
    flash(_("Your public profile is on: anyone with its address sees your finished games."))
    return redirect("/my-games#profile", 303)


@bp.post("/my-games/profile/off")
def withdraw() -> Response:
    parts().service.withdraw_profile(_address())
    flash(_("Your public profile is off: its page is gone."))
    return redirect("/my-games#profile", 303)


@bp.get("/players/<slug>")
def record(slug: str) -> Response:
    found = parts().service.public_record(slug)
    if found is None:
        abort(404)
    answer = make_response(render_template("profile.html", profile=found))
    answer.headers["Cache-Control"] = "no-cache"  # turned off, it is gone at once
    return answer
