"""Dev mode only: the mails the local catcher received, newest first. Each mail keeps
its number as new ones arrive: the oldest is 1."""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from flask import Blueprint, Response, abort, make_response, render_template

from pbem.mail.catcher import received

from .context import parts
from .csp import with_inline_styles

bp = Blueprint("dev", __name__, url_prefix="/dev")


def _folder() -> Path:
    return parts().settings.instance_dir / "mail"


def _messages() -> list[EmailMessage]:
    """Every mail caught, in the order it came (mail number n is at n - 1)."""
    parser = BytesParser(policy=policy.default)
    return [parser.parsebytes(m.as_bytes()) for m in received(_folder())]


@bp.get("/mail")
def mails() -> str:
    numbered = list(enumerate(_messages(), start=1))
    return render_template("dev_mail.html", messages=list(reversed(numbered)))


@bp.get("/mail/<int:number>")
def mail(number: int) -> Response:
    messages = _messages()
    if not 1 <= number <= len(messages):
        abort(404)
    message = messages[number - 1]
    html = message.get_body(("html",))
    text = message.get_body(("plain",))
    page = make_response(
        render_template(
            "dev_mail_one.html",
            number=number,
            message=message,
            text=text.get_content() if text else "",
            html=html.get_content() if html else None,
        )
    )
    page.headers["Content-Security-Policy"] = with_inline_styles()
    return page
