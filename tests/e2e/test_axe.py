"""axe-core (through axe-playwright-python, which bundles axe.min.js) on every page a
visitor meets, in Chromium at a desktop's and a phone's size: no serious or critical
violation. The seat's page is checked while a tile and a cell are chosen, so the lit
cells, the chosen cell and the bar with Play are checked too."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from tour import DESKTOP, PHONE, Tour, visit

GRAVE = {"serious", "critical"}


def grave_violations(page) -> list[str]:
    """Each serious or critical violation on the page: its rule, impact and where."""
    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + "; ".join(" ".join(node["target"]) for node in v["nodes"][:3])
        for v in found
        if v["impact"] in GRAVE
    ]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_no_page_has_a_serious_or_critical_accessibility_violation(site, browser, shoot, size):
    tour = Tour(site)
    viewport, touch = (PHONE, True) if size == "phone" else (DESKTOP, False)
    page = tour.enter(browser, viewport, every_game=True, has_touch=touch, is_mobile=touch)
    found = {}
    for name, url in tour.pages().items():
        visit(page, name, url)
        violations = grave_violations(page)
        if violations:
            found[name] = violations
        if size == "desktop":
            shoot(page, f"desktop-{name}")
    assert found == {}
    assert page.errors == []
