"""The development mail viewer shows a mail as a mail program would, in real
Chromium: the text part's links are links (and a hostile mail's markup stays text),
the HTML part in a sandboxed frame runs no script, its links open in a new tab and
its picture (a cid: image) is shown."""

from __future__ import annotations

import smtplib
from email.message import EmailMessage

import requests


def _turn_mail_number(site) -> int:
    """The first mover's invitation, which is their first turn mail too (a picture,
    the turn's link to play on the page)."""
    mails = site.wait_for_mails(2)
    return next(i for i, m in enumerate(mails, 1) if m["Subject"].endswith("it is your turn"))


def test_the_viewer_links_the_text_frames_the_html_and_shows_the_picture(site, browser):
    site.ann_and_ben()
    number = _turn_mail_number(site)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{site.url}/dev/mail/{number}")
    link = page.locator("pre.mail-text a[href*='/g/']").first
    href = link.get_attribute("href")
    assert href and href.startswith(site.url) and link.get_attribute("target") == "_blank"
    frame_element = page.locator("iframe.mail-html")
    sandbox = frame_element.get_attribute("sandbox") or ""
    assert "allow-scripts" not in sandbox and "allow-same-origin" not in sandbox
    frame = frame_element.content_frame
    picture = frame.locator("img").first
    picture.wait_for()
    assert picture.evaluate("(img) => img.complete && img.naturalWidth") > 100
    with page.context.expect_page() as opened:
        frame.locator("a", has_text="Play on the page").click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url.startswith(f"{site.url}/g/")  # a new tab, not an error in the frame
    assert frame.locator("a", has_text="Play on the page").count() == 1  # the frame stayed
    assert errors == []


def test_a_hostile_mail_runs_nothing_and_its_markup_in_the_text_stays_text(site, browser):
    port = int(site.parts.settings.smtp_url.rsplit(":", 1)[1])
    hostile = EmailMessage()
    hostile["Subject"] = "<script>alert(1)</script>"
    hostile["From"], hostile["To"] = "x@example.com", "y@example.com"
    hostile.set_content('see https://example.com/"><script>window.hit=1</script> now\n')
    hostile.add_alternative(
        "<html><head></head><body><script>parent.hit=1;document.title='ran'</script>"
        '<img src="cid:nothere" alt="x"><a href="https://example.com/x">x</a></body></html>',
        subtype="html",
    )
    with smtplib.SMTP("127.0.0.1", port) as smtp:
        smtp.send_message(hostile)
    number = len(site.wait_for_mails(1))
    page = browser.new_page()
    page.goto(f"{site.url}/dev/mail/{number}")
    text = page.locator("pre.mail-text")
    assert "<script>" in text.inner_text()  # shown as text, not run
    assert text.locator("a").get_attribute("href") == "https://example.com/"
    frame = page.locator("iframe.mail-html").content_frame
    frame.locator("a").wait_for()
    assert page.evaluate("window.hit") is None
    (inner,) = [f for f in page.frames if f.url.endswith("/html")]
    assert inner.evaluate("document.title") != "ran"  # its script did not run
    answer = requests.get(f"{site.url}/dev/mail/{number}/html", timeout=10)
    policy = answer.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy
    assert "sandbox allow-popups" in policy and "allow-scripts" not in policy
    assert requests.get(f"{site.url}/dev/mail/{number}/cid/nothere", timeout=10).status_code == 404
