"""POST /inbound/email: raw MIME from a mail provider's webhook, with the shared
secret (PBEM_INBOUND_SECRET) as a bearer token; the same handler as the mail pipe."""

from __future__ import annotations

import hmac

from flask import Blueprint, request

from pbem.mail.inbound import MAX_BYTES, Inbound

from .app import parts

bp = Blueprint("inbound", __name__)


@bp.post("/inbound/email")
def receive() -> tuple:
    secret = parts().settings.inbound_secret
    given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    if not secret or not hmac.compare_digest(given, secret):
        return {"error": "send the inbound secret: Authorization: Bearer ...", "detail": None}, 403
    raw = request.get_data(cache=False)
    if len(raw) > MAX_BYTES:
        return {"error": f"a mail is at most {MAX_BYTES} bytes", "detail": None}, 413
    p = parts()
    handled = Inbound(p.service, p.outbox, p.settings, p.service.clock).handle(
        raw, request.headers.get("X-Envelope-To")
    )
    return {"status": handled.status, "detail": handled.detail, "bounce": handled.bounce}, 200
