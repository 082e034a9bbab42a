"""Dev mode only: the mails the local catcher received, newest first, each shown as
a mail program shows it (see mailview). Each mail keeps its number as new ones
arrive: the oldest is 1."""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from flask import Blueprint, Response, abort, make_response, render_template, request, url_for

from pbem.mail.catcher import received

from . import mailview
from .context import parts
from .csp import with_inline_styles

bp = Blueprint("dev", __name__, url_prefix="/dev")


def _folder() -> Path:
    return parts().settings.instance_dir / "mail"


def _messages() -> list[EmailMessage]:
    """Every mail caught, in the order it came (mail number n is at n - 1)."""
    parser = BytesParser(policy=policy.default)
    return [parser.parsebytes(m.as_bytes()) for m in received(_folder())]


def _message(number: int) -> EmailMessage:
    messages = _messages()
    if not 1 <= number <= len(messages):
        abort(404)
    return messages[number - 1]


@bp.get("/mail")
def mails() -> str:
    numbered = list(enumerate(_messages(), start=1))
    return render_template("dev_mail.html", messages=list(reversed(numbered)))


@bp.get("/mail/<int:number>")
def mail(number: int) -> Response:
    message = _message(number)
    page = make_response(
        render_template(
            "dev_mail_one.html",
            number=number,
            message=message,
            text=mailview.linked(mailview.text_of(message)),
            html=message.get_body(("html",)) is not None,
        )
    )
    page.headers["Content-Security-Policy"] = with_inline_styles()
    return page


@bp.get("/mail/<int:number>/html")
def mail_html(number: int) -> Response:
    """The mail's HTML part, for the viewer's sandboxed frame only."""
    part = _message(number).get_body(("html",))
    if part is None:
        abort(404)
    picture_url = url_for("dev.mail_picture", number=number, cid="CID").replace("CID", "{cid}")
    page = make_response(mailview.framed_html(str(part.get_content()), picture_url))
    page.headers["Content-Type"] = "text/html; charset=utf-8"
    page.headers["Content-Security-Policy"] = mailview.frame_policy(request.host_url.rstrip("/"))
    page.headers["X-Frame-Options"] = "SAMEORIGIN"
    return page


@bp.get("/mail/<int:number>/cid/<path:cid>")
def mail_picture(number: int, cid: str) -> Response:
    """A raster picture of the mail (by its Content-ID), as the HTML part shows it."""
    found = mailview.picture(_message(number), cid)
    if found is None:
        abort(404)
    data, kind = found
    answer = make_response(data)
    answer.headers["Content-Type"] = kind
    answer.headers["Content-Security-Policy"] = "default-src 'none'; sandbox"
    return answer
