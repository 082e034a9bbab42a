"""Pages that update themselves, in Chromium: one player plays and the other's open
page shows the move within seconds, untouched; a half-made choice is kept behind a
"the game moved on" banner; the game page lists what the others did since this
browser last looked; deadlines count down in the browser's own time zone; the
dashboard counts the games waiting in its title."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

import pytest

from pbem.events import parse_timestamp
from pbem.service import PlayerSpec

pytestmark = pytest.mark.live_pages
WITHIN = 10_000  # ms: polls run every 3 s


def two_people(site, game="nim", **options):
    created = site.parts.service.create_game(
        [PlayerSpec("Ann", "ann@example.com"), PlayerSpec("Ben", "ben@example.com")],
        {"hours_per_turn": 48, **options},
        {"pile": 9} if game == "nim" else None,
        game=game,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def opened(browser, site, game_id, token, **context):
    page = browser.new_context(viewport={"width": 1100, "height": 900}, **context).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{site.url}/g/{game_id}/{token}")
    return page, errors


def test_one_player_plays_and_the_others_page_shows_it_without_a_reload(site, browser, shoot):
    game_id, tokens = two_people(site, public=True)
    ann, ann_errors = opened(browser, site, game_id, tokens[1])
    ben, ben_errors = opened(browser, site, game_id, tokens[2])
    watcher = browser.new_context().new_page()
    watcher.goto(f"{site.url}/g/{game_id}/watch")
    assert re.search(r"Ann( \(seat 1\))? to move", ben.locator(".status").inner_text())
    assert ben.locator("#since").is_hidden()  # nothing new on a first visit

    ann.check('input[name="action"][value="take 2"]')
    ann.click("#confirm")
    assert ann.locator(".flash").inner_text().startswith("You played take 2")

    ben.locator("#turn-h").wait_for(timeout=WITHIN)  # Ben's page, never reloaded by hand
    assert "your turn" in ben.locator(".status").inner_text()
    since = ben.locator("#since")
    since.wait_for(state="visible", timeout=WITHIN)  # filled by its own request after the load
    (told,) = [h.text for h in site.parts.service.history(game_id, 2) if h.seq == 2]
    assert since.locator("li").all_inner_texts() == [told]
    shoot(ben, "since-your-last-visit")
    assert "7 tokens left" in ben.locator(".nim-pile").inner_text()
    # the spectator's page follows too, and tells the move
    watcher.wait_for_function(
        "() => /Ben( \\(seat 2\\))? to move/.test(document.querySelector('.status').innerText)",
        timeout=WITHIN,
    )
    (watched,) = [h.text for h in site.parts.service.history(game_id, None) if h.seq == 2]
    watcher.locator("#since li").first.wait_for(timeout=WITHIN)
    assert watcher.locator("#since li").all_inner_texts() == [watched]
    # Ann's own page learns that it is Ben's turn, and lists nothing of her own
    ann.wait_for_function("() => !document.querySelector('#turn-h')", timeout=WITHIN)
    assert ann_errors == [] and ben_errors == []


def test_a_half_made_choice_is_kept_and_a_banner_says_the_game_moved_on(site, browser):
    game_id, tokens = two_people(site)
    ann, errors = opened(browser, site, game_id, tokens[1])
    ann.check('input[name="action"][value="take 3"]')  # chosen, not sent

    site.parts.service.time_out(game_id, 1, 1)  # the clock ran out meanwhile

    ann.locator("#moved-on").wait_for(state="visible", timeout=WITHIN)
    assert ann.locator('input[name="action"][value="take 3"]').is_checked()
    assert "moved on" in ann.locator("#moved-on").inner_text()
    ann.click("#moved-on a")
    assert re.search(r"Ben( \(seat 2\))? to move", ann.locator(".status").inner_text())
    assert errors == []


def test_a_player_at_the_page_is_never_reloaded_under_their_hands(site, browser):
    game_id, tokens = two_people(site)
    ann, errors = opened(browser, site, game_id, tokens[1])
    ann.locator("#turn-h").click()  # at the page, nothing chosen yet

    site.parts.service.time_out(game_id, 1, 1)

    ann.locator("#moved-on").wait_for(state="visible", timeout=WITHIN)
    assert ann.locator("#turn-h").is_visible()  # the page she was at, not reloaded
    assert errors == []


def test_the_countdown_shows_the_deadline_in_the_browsers_time_zone(site, browser, shoot):
    game_id, tokens = two_people(site)
    deadline = parse_timestamp(site.parts.service.clock_of(game_id)["deadline"])
    tokyo = deadline.astimezone(ZoneInfo("Asia/Tokyo"))
    ann, errors = opened(
        browser, site, game_id, tokens[1], timezone_id="Asia/Tokyo", locale="en-GB"
    )

    shown = ann.locator("#turn .turn-clock time.countdown").inner_text()

    assert re.fullmatch(r"(1 d 23 h|2 d 0 h) left — \w{3} \d\d:\d\d", shown), shown
    assert shown.endswith(tokyo.strftime("%a %H:%M"))
    assert tokyo.strftime("%H:%M") != deadline.strftime("%H:%M")  # not the UTC time
    assert ann.locator(".status time.countdown").inner_text() == shown
    shoot(ann, "countdown", element="#turn")
    assert errors == []


def test_without_javascript_the_deadline_stays_readable_in_utc(site, browser):
    game_id, tokens = two_people(site)
    deadline = site.parts.service.clock_of(game_id)["deadline"]
    page = browser.new_context(java_script_enabled=False).new_page()
    page.goto(f"{site.url}/g/{game_id}/{tokens[1]}")
    utc = deadline[:16].replace("T", " ")
    assert page.locator("#turn .turn-clock time.countdown").inner_text() == f"until {utc} UTC"


def test_the_dashboard_counts_my_waiting_games_and_updates_itself(site, browser, shoot):
    first, first_tokens = two_people(site)
    second, second_tokens = two_people(site)
    ben, errors = opened(browser, site, first, first_tokens[2])
    ben.goto(f"{site.url}/g/{second}/{second_tokens[2]}")
    ben.goto(f"{site.url}/my-games")
    assert ben.title() == "My games — Mall by mail"
    icon = ben.locator('link[rel="icon"]').get_attribute("href")

    service = site.parts.service
    service.submit_action(first, first_tokens[1], "take 1", 1)

    ben.wait_for_function(
        "() => document.title.startsWith('(1) ')", timeout=WITHIN
    )  # the page updated itself
    assert ben.locator(".my-game").first.get_attribute("data-game") == first
    # the icon becomes the marked one at once, then the badge drawn on it (an image
    # loaded first): wait for the badge itself, not for the first change
    ben.wait_for_function(
        "(before) => { const now = document.querySelector('link[rel=icon]').getAttribute('href');"
        " return now !== before && now.startsWith('data:image/png'); }",
        arg=icon,
    )
    assert ben.locator('link[rel="icon"]').get_attribute("href").startswith("data:image/png")
    shoot(ben, "dashboard")
    assert errors == []
