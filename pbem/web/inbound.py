"""POST /inbound/email: raw MIME from a mail provider's webhook, with the shared
secret (PBEM_INBOUND_SECRET) as a bearer token; the same handler as the mail pipe.
A mail is never a 5xx: handled, refused (with `bounce`) or ignored is 200 with its
status; only a passing failure (the database or the broker away, or the mail in hand
elsewhere) is 503 with Retry-After, for the provider to send it again."""

from __future__ import annotations

from flask import Blueprint, request

from pbem.mail.inbound import MAX_BYTES, TEMPORARY

from .bearer import bearer_is
from .context import parts

bp = Blueprint("inbound", __name__)
RETRY_AFTER = "60"


@bp.post("/inbound/email")
def receive() -> tuple:
    secret = parts().settings.inbound_secret
    if not bearer_is(secret):
        return {"error": "send the inbound secret: Authorization: Bearer ...", "detail": None}, 403
    raw = request.get_data(cache=False)
    if len(raw) > MAX_BYTES:
        return {"error": f"a mail is at most {MAX_BYTES} bytes", "detail": None}, 413
    recipient = request.headers.get("X-Envelope-To")
    try:
        handled = parts().inbound.handle(raw, recipient)
    except TEMPORARY:
        busy = {"error": "the mail cannot be handled now; send it again later", "detail": None}
        return busy, 503, {"Retry-After": RETRY_AFTER}
    if handled.retry:
        busy = {"error": handled.detail, "detail": None}
        return busy, 503, {"Retry-After": RETRY_AFTER}
    return {"status": handled.status, "detail": handled.detail, "bounce": handled.bounce}, 200
