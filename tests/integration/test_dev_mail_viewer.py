"""The development mail viewer on mails a real SMTP catcher received: the text part's
addresses are links and the rest stays text; the HTML part is a page of its own with
a policy of no scripts, framed only by the viewer, its links opening a new tab and
its cid: picture served from the mail; outside dev mode none of it exists."""

from __future__ import annotations

import re
import smtplib
from email.message import EmailMessage

from test_mail import smtp  # noqa: F401 (the catcher fixture)

from pbem.mail.compose import Composer
from pbem.mail.deliver import deliver_due
from pbem.service import PlayerSpec


def _turn_mail(app, parts, address) -> int:
    parts.service.create_game([PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben")])
    deliver_due(parts.outbox, Composer(parts.service, parts.settings), address)
    listing = app.test_client().get("/dev/mail").get_data(as_text=True)
    # Ann moves first: her invitation is her first turn mail too
    return int(re.findall(r'href="/dev/mail/(\d+)">[^<]*it is your turn<', listing)[0])


def test_the_text_is_linked_and_the_html_framed_with_its_picture(web, smtp):  # noqa: F811
    app, parts = web
    address, _folder = smtp
    number = _turn_mail(app, parts, address)
    client = app.test_client()
    page = client.get(f"/dev/mail/{number}").get_data(as_text=True)
    assert re.search(r'<a href="http://pbem\.test/g/[^"]+" target="_blank" rel="noopener', page)
    frame = re.search(r"<iframe[^>]*>", page)[0]
    assert 'sandbox="allow-popups allow-popups-to-escape-sandbox"' in frame
    assert f'src="/dev/mail/{number}/html"' in frame
    answer = client.get(f"/dev/mail/{number}/html")
    policy = answer.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "sandbox allow-popups" in policy
    assert "script-src" not in policy and "frame-ancestors 'self'" in policy
    assert answer.headers["X-Frame-Options"] == "SAMEORIGIN"
    html = answer.get_data(as_text=True)
    assert '<base target="_blank">' in html and "cid:" not in html
    (picture,) = re.findall(rf'src="(/dev/mail/{number}/cid/[^"]+)"', html)
    image = client.get(picture)
    assert image.status_code == 200 and image.mimetype == "image/png"
    assert image.data.startswith(b"\x89PNG")
    assert client.get(f"/dev/mail/{number}/cid/nothing%40here").status_code == 404
    assert client.get(f"/dev/mail/{number + 50}/html").status_code == 404


def test_a_hostile_mails_markup_stays_text_and_its_svg_is_not_served(web, smtp):  # noqa: F811
    app, _parts = web
    address, _folder = smtp
    hostile = EmailMessage()
    hostile["Subject"], hostile["From"], hostile["To"] = "x", "x@example.com", "y@example.com"
    hostile.set_content('go https://a.example/"><script>alert(1)</script> javascript:alert(2)\n')
    hostile.add_alternative('<p><img src="cid:pic@x"></p>', subtype="html")
    hostile.get_body(("html",)).add_related(
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(3)</script></svg>',
        "image",
        "svg+xml",
        cid="<pic@x>",
    )
    with smtplib.SMTP(address.host, address.port) as connection:
        connection.send_message(hostile)
    client = app.test_client()
    page = client.get("/dev/mail/1").get_data(as_text=True)
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    assert '<a href="https://a.example/"' in page and 'href="javascript' not in page
    assert client.get("/dev/mail/1/cid/pic%40x").status_code == 404  # no SVG, ever


def test_outside_dev_mode_the_viewer_does_not_exist(make_parts, clock):
    from pbem.web.app import create_app

    app = create_app(make_parts(clock))
    for url in ("/dev/mail", "/dev/mail/1", "/dev/mail/1/html", "/dev/mail/1/cid/a%40b"):
        assert app.test_client().get(url).status_code == 404, url
