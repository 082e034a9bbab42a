"""The game service: the only writer of games (see service.py)."""

from .errors import (
    Accepted,
    BadRequest,
    Created,
    Forbidden,
    Happened,
    Illegal,
    NotFound,
    SeatLink,
    ServiceError,
    Stale,
)
from .service import PlayerSpec, Service

__all__ = [
    "Accepted",
    "BadRequest",
    "Created",
    "Forbidden",
    "Happened",
    "Illegal",
    "NotFound",
    "PlayerSpec",
    "SeatLink",
    "Service",
    "ServiceError",
    "Stale",
]
