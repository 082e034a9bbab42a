"""Diplomacy orders written by clicking the map, in Chromium: France clicks a move, a
support and a hold (each written into the orders box only as one of her possible
orders, a second order for a unit replacing the first) and sends them; later
phases bring a fleet's choice of coast, a convoy and its army, a retreat and
builds; a click on another power's unit starts nothing. The page with a unit
chosen has no serious accessibility violation, and no script error."""

from __future__ import annotations

from test_axe import grave_violations

from pbem.service import PlayerSpec

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus"]
ENGLAND, FRANCE, GERMANY = 2, 3, 4


def seven(service):
    """A game of Diplomacy for seven people; its id and the seats' tokens."""
    created = service.create_game(
        [PlayerSpec(n, f"{n.lower()}@example.com") for n in NAMES],
        {"public": True},
        None,
        game="diplomacy",
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def seat_page(site, browser, game_id, token):
    """A seat's game page, keeping the script errors and the console's."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.errors = errors
    page.goto(f"{site.url}/g/{game_id}/{token}")
    return page


def click(page, province):
    """A click on the province's name on the map of the page, as a pointer does."""
    label = page.locator(f'.dip-board text[data-province="{province}"]')
    label.scroll_into_view_if_needed()
    box = label.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def orders(page):
    return page.locator("#move").input_value().splitlines()


def said(page):
    return page.locator("#dip-status").inner_text()


def chosen(page):
    return page.locator(".dip-board path.dip-chosen").evaluate_all(
        "shapes => shapes.map(s => s.getAttribute('data-province'))"
    )


def kind(page, name):
    page.get_by_role("button", name=name, exact=True).click()


def send(page):
    page.click("#confirm")
    page.wait_for_load_state()


def everyone_else_holds(service, game_id, tokens, but):
    for seat, token in tokens.items():
        if seat not in but:
            service.submit_action(game_id, token, "hold", service.state_at(game_id)["seq"])


def test_france_writes_a_move_a_support_and_a_hold_by_clicking_and_sends_them(site, browser, shoot):
    service = site.parts.service
    game_id, tokens = seven(service)
    page = seat_page(site, browser, game_id, tokens[FRANCE])
    assert page.locator("#dip-click-hint").is_visible()
    assert page.locator(".dip-mode").all_inner_texts() == ["Move", "Support", "Convoy"]
    assert orders(page) == []

    click(page, "PAR")
    assert chosen(page) == ["PAR"] and "A PAR" in said(page)
    lit = page.locator(".dip-board path.dip-lit").evaluate_all(
        "shapes => shapes.map(s => s.getAttribute('data-province')).sort()"
    )
    assert lit == ["BRE", "BUR", "GAS", "PIC"]  # where it may move (PAR itself is chosen)
    shoot(page, "unit-chosen", ".dip-board")
    assert grave_violations(page) == []
    click(page, "MUN")  # no possible order of A PAR: nothing written, PAR stays chosen
    assert orders(page) == [] and chosen(page) == ["PAR"]
    assert said(page) == "A PAR has no such possible order (MUN)."
    click(page, "PIC")
    assert orders(page) == ["A PAR - PIC"] and chosen(page) == []
    assert said(page) == "Written in your orders: A PAR - PIC"
    click(page, "PAR")
    click(page, "BUR")  # the same unit again: its line is replaced
    assert orders(page) == ["A PAR - BUR"]

    kind(page, "Support")
    assert page.locator('.dip-mode[data-mode="support"]').get_attribute("aria-pressed") == "true"
    click(page, "MAR")
    click(page, "PAR")
    assert sorted(chosen(page)) == ["MAR", "PAR"]
    click(page, "BUR")
    assert orders(page) == ["A PAR - BUR", "A MAR S A PAR - BUR"]
    # a support written, the kind is a move again
    assert page.locator('.dip-mode[data-mode="move"]').get_attribute("aria-pressed") == "true"

    click(page, "BRE")
    click(page, "BRE")  # the same province twice: it holds
    assert orders(page) == ["A PAR - BUR", "A MAR S A PAR - BUR", "F BRE H"]

    send(page)
    doc = service.state_at(game_id, seat=FRANCE)
    assert sorted(doc["my_orders"]) == ["A MAR S A PAR - BUR", "A PAR - BUR", "F BRE H"]
    assert page.errors == []


def test_a_click_on_another_powers_unit_starts_nothing(site, browser):
    service = site.parts.service
    game_id, tokens = seven(service)
    page = seat_page(site, browser, game_id, tokens[FRANCE])
    page.fill("#move", "A PAR - GAS")
    for province in ("MUN", "LON", "MAO"):  # a German army, an English fleet, a sea
        click(page, province)
        assert said(page) == f"Nothing of yours to order in {province}."
        assert chosen(page) == [] and orders(page) == ["A PAR - GAS"]
    kind(page, "Support")
    click(page, "MUN")  # nor as the unit that supports
    assert chosen(page) == [] and orders(page) == ["A PAR - GAS"]
    click(page, "MAR")
    assert chosen(page) == ["MAR"]
    page.keyboard.press("Escape")  # lets go of the unit chosen
    assert chosen(page) == [] and said(page) == "Nothing chosen."
    assert page.errors == []


def test_coasts_convoys_retreats_and_builds_by_clicking(site, browser, shoot):
    service = site.parts.service
    game_id, tokens = seven(service)
    moves = {
        FRANCE: "A PAR - BUR\nA MAR - SPA\nF BRE - MAO",
        GERMANY: "A MUN - RUH\nA BER - MUN",
        ENGLAND: "F LON - NTH\nA LVP - YOR",
    }
    for seat, given in moves.items():
        service.submit_action(game_id, tokens[seat], given, service.state_at(game_id)["seq"])
    everyone_else_holds(service, game_id, tokens, but=moves)
    assert service.state_at(game_id)["phase"] == "F1901M"

    # Fall: Germany dislodges France's army in Burgundy
    given = "A RUH - BUR\nA MUN S A RUH - BUR"
    service.submit_action(game_id, tokens[GERMANY], given, service.state_at(game_id)["seq"])
    everyone_else_holds(service, game_id, tokens, but={FRANCE, ENGLAND, GERMANY})
    france = seat_page(site, browser, game_id, tokens[FRANCE])
    click(france, "MAO")
    click(france, "SPA")  # two coasts: asked, never guessed
    assert orders(france) == []
    assert said(france) == "Which coast of SPA? Choose one of the orders below."
    coasts = france.locator("#dip-coasts button")
    assert coasts.all_inner_texts() == ["F MAO - SPA/NC", "F MAO - SPA/SC"]
    shoot(france, "coasts", "#turn")
    coasts.nth(1).click()
    assert orders(france) == ["F MAO - SPA/SC"] and france.locator("#dip-coasts").is_hidden()
    click(france, "MAO")
    click(france, "POR")
    click(france, "BUR")
    click(france, "BUR")
    assert orders(france) == ["F MAO - POR", "A BUR H"]
    send(france)
    assert service.state_at(game_id, seat=FRANCE)["my_orders"] == ["F MAO - POR", "A BUR H"]

    england = seat_page(site, browser, game_id, tokens[ENGLAND])
    kind(england, "Convoy")
    click(england, "NTH")
    click(england, "YOR")
    click(england, "NWY")
    click(england, "YOR")
    click(england, "NWY")  # no move by land: the move by convoy
    assert orders(england) == ["F NTH C A YOR - NWY", "A YOR - NWY VIA"]
    send(england)  # the last orders of the phase: it resolves
    doc = service.state_at(game_id)
    assert doc["phase"] == "F1901R" and "A NWY" in doc["units"]["ENGLAND"]

    france.reload()
    assert france.locator(".dip-mode").all_inner_texts() == ["Retreat", "Disband"]
    kind(france, "Disband")
    click(france, "BUR")  # one click disbands
    assert orders(france) == ["A BUR D"]
    kind(france, "Retreat")
    click(france, "BUR")
    click(france, "RUH")  # whence the attack came: no retreat there
    assert orders(france) == ["A BUR D"]
    click(france, "PIC")
    assert orders(france) == ["A BUR R PIC"]
    send(france)
    assert service.state_at(game_id)["phase"] == "W1901A"

    france.reload()
    assert france.locator(".dip-mode").all_inner_texts() == ["Build army", "Build fleet"]
    click(france, "PAR")
    kind(france, "Build fleet")
    click(france, "PAR")  # no coast in Paris: no fleet built there
    assert said(france) == "No possible order of this kind in PAR."
    click(france, "BRE")
    assert orders(france) == ["A PAR B", "F BRE B"]
    send(france)
    assert service.state_at(game_id, seat=FRANCE)["my_orders"] == ["A PAR B", "F BRE B"]
    assert france.errors == [] and england.errors == []
