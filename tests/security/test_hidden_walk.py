"""The hidden-information walk (docs/games/mall.md section 11): one short three-player game with
a bot, an agreed undo past a drawn tile, a request that lapses and a seat handed to
a new person, played to its end. After every event, every viewer (each seat, a
spectator, the replaced holder's dead link) reads everything it can get — the state
document, its legal actions, the log export, the game page, the watch page, the
history page, the mails written for it, `pbem game show --at` — and none of it names
a tile not yet drawn, another seat's secret card or the seed while the game runs."""

from __future__ import annotations

import re

from click.testing import CliRunner
from sqlmodel import select

from pbem.cli import main
from pbem.games import get
from pbem.mail.compose import Composer, Moot
from pbem.service import PlayerSpec
from pbem.store import states
from pbem.store.tables import Outbox

SEED = "walk-seed-3b9e51c0d7"
SETUP = {
    "seed": SEED,
    "supply": [
        *("Y01", "B01", "G01", "R13", "Y02", "B02", "G02", "R01"),  # the Dispenser
        *("Y03", "B03", "G03", "R02", "Y04", "B04"),  # the supply, in draw order
    ],
    "commons": ["haunted-hotel", "aqua-dome"],
    "secrets": {"1": "O3", "2": "O5", "3": "O1"},
}
RANDOM_VALUES = re.compile(r'name="(csrf_token|key)" value="[^"]*"')


def forbidden(state, viewer: int | None) -> set[str]:
    """What `viewer` may not see in `state`, from the whole state: every tile not
    yet drawn, every other seat's card unless its statue stands or the game has
    ended, and the seed until the end."""
    if state.finished:
        return set()  # the seed is public now: anyone can replay the whole game
    hidden = {*state.supply, SEED}
    for player in state.players:
        if player.seat != viewer and not player.statue_built:
            hidden.add(player.secret)
    return hidden


def named(text: str, words: set[str]) -> set[str]:
    """The words of `words` that `text` names as whole words."""
    return {w for w in words if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text)}


class Walk:
    def __init__(self, web, tmp_path) -> None:
        self.app, self.parts = web
        self.service = self.parts.service
        created = self.service.create_game(
            [
                PlayerSpec("Ann", "ann@example.com"),
                PlayerSpec("Ben", "ben@example.com"),
                PlayerSpec("Bot", bot="greedy"),
            ],
            {"public": True},
            SETUP,
        )
        self.game = created.game_id
        self.tokens = {s.seat: s.token for s in created.seats if s.token}
        self.viewers = {"spectator": (None, None)}
        for seat, who in ((1, "ann"), (2, "ben")):
            self.viewers[who] = (seat, self.tokens[seat])
        self.clients = {who: self._client(tok) for who, (_, tok) in self.viewers.items()}
        self.composer = Composer(self.service, self.parts.settings)
        self.mailed = 0
        self.checks = 0
        self.cli_env = {
            "PBEM_DATABASE_URL": self.parts.settings.database_url,
            "PBEM_SECRET_KEY": "web-secret",
            "PBEM_INSTANCE_DIR": str(tmp_path / "cli"),
        }

    def _client(self, tok):
        client = self.app.test_client()
        client.bearer = {}
        if tok:
            client.get(f"/g/{self.game}/{tok}")
            client.bearer = {"Authorization": f"Bearer {tok}"}
        return client

    def state(self):
        rules = get("mall")
        with self.parts.database.read() as s:
            head = self.service.state_at(self.game)["seq"]
            return states.state_at(s, rules, self.game, head)

    def seat_of(self, who: str) -> int | None:
        _, tok = self.viewers[who]
        if tok is None:
            return None
        try:
            return self.service.seat_of(self.game, tok)
        except Exception:  # a dead link: it sees what a spectator sees, if anything
            return None

    def see(self, who: str, what: str, text: str) -> None:
        hidden = forbidden(self.state(), self.seat_of(who))
        leaked = named(RANDOM_VALUES.sub("", text), hidden)
        assert not leaked, (who, what, sorted(leaked))
        self.checks += 1

    def look(self, every_seq: bool = False) -> None:
        """Every viewer reads every page and answer now."""
        head = self.service.state_at(self.game)["seq"]
        for who, client in self.clients.items():
            urls = [
                f"/api/games/{self.game}",
                f"/api/games/{self.game}/legal",
                f"/api/games/{self.game}/log",
                f"/g/{self.game}",
                f"/g/{self.game}/watch",
                f"/g/{self.game}/history",
            ]
            seqs = range(1, head + 1) if every_seq else (max(head - 1, 1),)
            urls += [f"/g/{self.game}/history?at={at}" for at in seqs]
            for url in urls:
                answer = client.get(url, headers=client.bearer)
                assert answer.status_code < 500, (who, url, answer.status_code)
                self.see(who, url, answer.get_data(as_text=True))
            seat = self.seat_of(who)
            for at in seqs:
                self.see(who, f"describe at {at}", self.service.describe(self.game, at, seat))
        self.read_mail()

    def read_mail(self) -> None:
        """Each mail written since the last look, rendered now for its reader."""
        with self.parts.database.read() as s:
            rows = s.exec(
                select(Outbox).where(Outbox.game_id == self.game).order_by(Outbox.id)
            ).all()
        for row in rows[self.mailed :]:
            try:
                mail = self.composer.compose(row)
            except Moot:
                continue
            hidden = forbidden(self.state(), row.seat)
            for part in mail.walk():
                if part.get_content_maintype() == "text":
                    leaked = named(part.get_content(), hidden)
                    assert not leaked, (row.kind, row.seat, sorted(leaked))
            assert not named(str(mail["Subject"]), hidden)
            self.checks += 1
        self.mailed = len(rows)

    def show_every_seq(self) -> None:
        """`pbem game show --at N` for each seq, as a spectator and as each seat."""
        head = self.service.state_at(self.game)["seq"]
        for who, (_, tok) in self.viewers.items():
            if self.seat_of(who) is None and tok is not None:
                continue  # a dead link is refused by the command
            for at in range(1, head + 1):
                args = ["game", "show", self.game, "--at", str(at)]
                if tok:
                    args += ["--token", tok]
                result = CliRunner().invoke(main, args, env=self.cli_env)
                assert result.exit_code == 0, result.output
                self.see(who, f"pbem game show --at {at}", result.output)

    def play(self, seat: int, action: str | None = None) -> None:
        tok = next(t for who, (s, t) in self.viewers.items() if s == seat and self.live(who))
        text = action or self.service.legal(self.game, seat)[0]
        self.service.submit_action(self.game, tok, text)
        self.look()

    def live(self, who: str) -> bool:
        return self.seat_of(who) is not None

    def bots(self) -> None:
        while True:
            doc = self.service.state_at(self.game)
            if doc["turn"] != 3:
                return
            self.service.play_bot(self.game, 3, doc["seq"])
            self.look()

    def to_move(self) -> int | None:
        return self.service.state_at(self.game)["turn"]


def test_no_viewer_ever_sees_what_is_hidden_from_it(web, tmp_path):
    walk = Walk(web, tmp_path)
    walk.look(every_seq=True)
    walk.play(1, "money L")  # draws Y03
    walk.play(2, "build L4 at 0,2")  # places Y03, draws B03
    walk.bots()  # the bot draws too
    walk.service.undo(walk.game, walk.tokens[1])  # past three draws: Ben must agree
    walk.look()
    walk.service.answer_undo(walk.game, walk.tokens[2], True)
    assert walk.state().supply[:2] == ("Y03", "B03")  # hidden again
    walk.look(every_seq=True)

    link = walk.service.replace_seat(walk.game, 2, "human", name="Cy", email="cy@example.com")
    walk.viewers["cy"] = (2, link.token)
    walk.clients["cy"] = walk._client(link.token)
    walk.look(every_seq=True)
    assert walk.seat_of("ben") is None  # the old holder's link is dead

    walk.play(1)
    walk.play(2)
    walk.bots()
    walk.service.undo(walk.game, link.token)  # Cy asks; Ann plays on instead
    walk.look()
    while walk.to_move() is not None:
        if walk.to_move() == 3:
            walk.bots()
        else:
            walk.play(walk.to_move())
    assert walk.service.state_at(walk.game)["status"] == "finished"
    walk.look(every_seq=True)
    walk.show_every_seq()
    assert walk.checks > 500
