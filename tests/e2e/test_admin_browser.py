"""The admin page in Chromium, in German: a wrong key is refused, the right one
opens the page, and Retry on a failed mail puts it back in the queue."""

from __future__ import annotations

from pbem.service import PlayerSpec


def test_an_operator_signs_in_and_retries_a_failed_mail(site, browser, shoot):
    created = site.parts.service.create_game(
        [PlayerSpec("Anna", "anna@example.com"), PlayerSpec("Bernd", "bernd@example.com")],
        None,
        None,
    )
    row = site.parts.outbox.answer(created.game_id, 1, "kein adresse", {"status": "unreadable"})
    assert site.parts.outbox.status(row) == "failed"
    context = browser.new_context(locale="de-DE")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(f"{site.url}/admin")
    assert page.url == f"{site.url}/admin/sign-in"
    page.get_by_label("Admin-Schlüssel").fill("not the key")
    page.get_by_role("button", name="Anmelden").click()
    assert page.get_by_role("alert").inner_text() == "Das ist nicht der Admin-Schlüssel."

    page.get_by_label("Admin-Schlüssel").fill("e2e-admin")
    page.get_by_role("button", name="Anmelden").click()
    page.wait_for_url(f"{site.url}/admin")
    assert page.locator("h1").inner_text() == "Verwaltung"
    failed = page.locator("#failed")
    assert failed.get_by_role("heading").inner_text() == "Aufgegebene Mails"
    line = failed.locator("tr", has_text="kein adresse")
    assert line.count() == 1
    shoot(page, "admin")

    line.get_by_role("button", name="Erneut senden").click()
    page.wait_for_url(f"{site.url}/admin#failed")
    flash = page.get_by_role("status").first
    assert flash.inner_text() == f"Mail {row} wartet wieder: Der nächste Durchlauf sendet sie."
    assert site.parts.outbox.get(row).attempts <= 1  # counted afresh
    assert errors == []
    context.close()
