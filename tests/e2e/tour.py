"""The tour of every page a visitor meets, for the browser tests that walk them all
(phones, the content security policy, accessibility): the games it is shown with,
the pages by name, and how each is opened."""

from __future__ import annotations

from test_browser import SUPPLY, links_by_address

from pbem.games import GAMES
from pbem.service import rows
from pbem.service.joining import join_token
from pbem.service.service import PlayerSpec

PHONE = {"width": 375, "height": 812}
DESKTOP = {"width": 1280, "height": 900}


class Tour:
    """The games every page is shown with: a two-player mall game with Ann to move, a
    finished four-player mall game of bots, a nim game with Cy to move against a
    bot, and every registered game's example under way."""

    def __init__(self, site) -> None:
        self.mall = site.ann_and_ben(
            {
                "seed": "e2e",
                "supply": SUPPLY,
                "commons": ["zero-g-carousel", "aqua-dome"],
                "secrets": {"1": "O3", "2": "O5"},
            }
        )["id"]
        self.links = links_by_address(site.wait_for_mails(2))
        service = site.parts.service
        bots = [PlayerSpec(f"Bot {n}", None, "greedy") for n in range(1, 5)]
        self.finished = service.create_game(bots, {"public": True}, None).game_id
        service.play_bots(self.finished)
        assert service.state_at(self.finished)["status"] == "finished"
        nim = service.create_game(
            [PlayerSpec("Cy", "cy@example.com", None), PlayerSpec("Nim bot", None, "greedy")],
            {"public": True},
            None,
            game="nim",
        )
        self.nim = nim.game_id
        for count in range(3, 10):  # Cy's invitation, whenever it comes
            self.links.update(links_by_address(site.wait_for_mails(count)))
            if "cy@example.com" in self.links:
                break
        # a nim game Cy has won, for My games' archive (her result, replay and log)
        won = service.create_game(
            [PlayerSpec("Cy", "cy@example.com", None), PlayerSpec("Nim bot", None, "greedy")],
            None,
            {"pile": 3},
            game="nim",
        )
        service.submit_action(won.game_id, won.seats[0].token, "take 3")
        self.won = f"{site.url}/g/{won.game_id}/{won.seats[0].token}"
        self.profile = service.publish_profile("cy@example.com", "Cy")  # her public page
        # an open table of nim with a seat left, and Eve's link to take it (unused)
        opened = service.open_table([PlayerSpec("Dee", "dee@example.com")], 2, game="nim")
        self.table, self.manage = opened.table_id, opened.manage
        service.ask_to_join(opened.table_id, "Eve", "eve@example.com")
        with site.parts.database.reading() as conn:
            kind = rows.OUTBOX.c.kind == "join_confirm"
            payload = conn.execute(rows.OUTBOX.select().where(kind)).one().payload
        self.join = join_token(site.parts.settings.signing_key(), payload["nonce"])
        self.site = site
        self._examples: dict[str, tuple[str, str]] | None = None

    @property
    def examples(self) -> dict[str, tuple[str, str]]:
        """Every registered game under way, from its examples (made when a tour of
        every page first asks): its id and the link of a seat on its turn."""
        if self._examples is None:
            service, url = self.site.parts.service, self.site.url
            self._examples = {name: example_under_way(service, url, name) for name in GAMES}
        return self._examples

    def pages(self) -> dict[str, str]:
        """Every page a visitor meets, by a short name (the seat's own page is opened
        through its link first, see `enter`)."""
        url = self.site.url
        return {
            "home": f"{url}/",
            "new": f"{url}/new",
            "my-games": f"{url}/my-games",
            "my-games-finished": f"{url}/my-games?show=finished&game=nim",
            "profile": f"{url}/players/{self.profile}",
            "rules": f"{url}/rules",
            "seat-turn": f"{url}/g/{self.mall}",
            "seat": f"{url}/g/{self.mall}",  # with a tile and a cell chosen
            "seat-keys": f"{url}/g/{self.mall}",  # with the list of keys open
            "watch": f"{url}/g/{self.mall}/watch",
            "history": f"{url}/g/{self.mall}/history",
            "finished": f"{url}/g/{self.finished}/watch",
            "finished-history": f"{url}/g/{self.finished}/history",
            "nim": f"{url}/g/{self.nim}",  # Cy's seat, her turn
            "nim-watch": f"{url}/g/{self.nim}/watch",
            "mails": f"{url}/dev/mail",
            "mail": f"{url}/dev/mail/1",
            "created": f"{url}/new",  # an all-bot game made through the form
            "sign-in": f"{url}/my-games/sign-in/a-mailed-link",  # its button
            "sign-out": f"{url}/my-games/sign-out-everywhere/a-mailed-link",  # its button
            "error": f"{url}/g/no-such-game",
            # Ben's link in the browser holding Ann's seat: which one it is to be
            "switch-seat": self.links["ben@example.com"],
            "open": f"{url}/open",
            "open-table": f"{url}/open/{self.table}",
            "open-join": f"{url}/open/join/{self.join}",  # its button
            "open-manage": f"{url}/open/{self.table}/manage/{self.manage}",
            # the switch, then the seat's page and the history in German
            "seat-de": f"{url}/language/de?next=/g/{self.mall}",
            "history-de": f"{url}/g/{self.mall}/history",
            **{f"rules-{name}": f"{url}/rules/{name}" for name in GAMES},
            **{
                f"{name}-{page}": f"{url}/g/{game_id}{path}"
                for name, (game_id, _link) in self.examples.items()
                for page, path in (("seat", ""), ("watch", "/watch"), ("history", "/history"))
            },
        }

    def enter(self, browser, viewport: dict, every_game: bool = False, **options):
        """A browser holding Ann's seat and Cy's, on Ann's game page; with
        `every_game`, a seat of each registered game's example too (the tour of
        every page visits them)."""
        context = browser.new_context(viewport=viewport, **options)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.errors = errors
        page.goto(self.links["cy@example.com"])
        page.goto(self.won)
        for _game_id, link in self.examples.values() if every_game else ():
            page.goto(link)
        page.goto(self.links["ann@example.com"])
        assert page.locator(".mall-card.yours").count() == 1, (
            f"Ann's link did not open her seat: {self.links}\n{page.url}\n"
            f"{page.locator('body').inner_text()[:800]}"
        )
        return page


SEATS = tuple(f"{name}-seat" for name in GAMES)  # each game's example, a seat on its turn


def example_under_way(service, url: str, name: str) -> tuple[str, str]:
    """A public game of `name` played as its first example under way says, and the
    link of a seat it waits on (its people have addresses of their own)."""
    example = next(e for e in GAMES[name].examples() if not e.ends)
    people = [PlayerSpec(n, f"{n.lower()}.{name}@example.com") for n in example.players]
    created = service.create_game(people, {"public": True}, dict(example.setup), game=name)
    tokens = {s.seat: s.token for s in created.seats}
    for seat, text in example.moves:
        service.submit_action(created.game_id, tokens[seat], text)
    seat = min(service.state_at(created.game_id)["waiting"])
    return created.game_id, f"{url}/g/{created.game_id}/{tokens[seat]}"


def visit(page, name: str, url: str) -> None:
    """Open one page of the tour; on the seat's own page, also choose a move."""
    page.goto(url)
    if name == "created":
        page.select_option("#kind1", index=1)
        page.select_option("#kind2", index=1)
        page.locator("form button[type=submit]").last.click()
        page.wait_for_url("**/new/created/**")
    if name == "seat-de":
        assert page.locator("html").get_attribute("lang") == "de"
    if name in ("seat-turn", "seat", "seat-keys", "nim", "seat-de", *SEATS):
        assert page.locator("#turn").count() == 1, (
            f"{name}: not the player's turn: {page.url}\n{page.locator('body').inner_text()[:600]}"
        )
    if name == "seat":
        choose_a_cell(page)
    if name == "seat-keys":
        page.keyboard.press("?")
        assert page.locator("dialog#keys").evaluate("d => d.open")


def choose_a_cell(page) -> None:
    """Ann picks the tile in L1 and taps a lit cell of her mall."""
    page.click('.dispenser svg g.slot[data-slot="L1"]')
    page.click('.mall-card.yours rect.target.legal[data-x="1"][data-y="2"]', force=True)
