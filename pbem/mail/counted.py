"""The inbound mail handler, each mail's outcome counted (pbem.metrics): what the
handler answered (accepted, illegal, refused ...), or "temporary" when the database
or the broker was away and the mail server is to try again."""

from __future__ import annotations

from pbem import metrics

from .inbound import TEMPORARY, Handled, Inbound


class CountedInbound(Inbound):
    """Inbound, counting the outcome of every mail it handles."""

    def handle(self, raw: bytes, recipient: str | None = None) -> Handled:
        try:
            handled = super().handle(raw, recipient)
        except TEMPORARY:
            metrics.mail_handled("temporary")
            raise
        metrics.mail_handled(handled.status)
        return handled
