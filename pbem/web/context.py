"""The running app's parts, for the blueprints: they import these accessors from here,
never from `app`, so the app factory imports its blueprints and nothing imports back."""

from __future__ import annotations

from flask import current_app

from pbem.bootstrap import Parts
from pbem.service.sessions import SeatSessions


def parts() -> Parts:
    """The composition root's parts of the running app."""
    return current_app.extensions["pbem"]


def seat_sessions() -> SeatSessions:
    """The browsers' seat sessions of the running app."""
    return parts().sessions
