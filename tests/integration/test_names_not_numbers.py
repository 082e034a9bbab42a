"""Names, not numbers, on the pages: the game log, the game, watch and history pages
and "since your last visit" say players' names and "you", never "seat N" where a name
is known, and the mall's narration names tiles, attractions and bays; seq numbers,
the head hash and the seed sit in a "Details" fold; a finished game opens on its
final results. Hidden information stays hidden in all of it (docs/games/mall.md section 11)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from hidden import shows

from pbem.games.mall.content import load
from pbem.games.mall.explain import attraction_name
from pbem.service import PlayerSpec

from support import SHORT

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
LOG = re.compile(r'<section class="log".*?</section>', re.S)
DETAILS = re.compile(r'<details class="details">.*?</details>', re.S)
SEAT_NUMBER = re.compile(r"\b[Ss]eat \d")
SITE_CSS = Path(__file__).parents[2] / "static" / "site.css"


def game(parts, public=True, setup=SHORT, names=("Ann", "Ben")):
    created = parts.service.create_game(
        [PlayerSpec(n, f"{n.lower().replace(' ', '')}@example.com") for n in names],
        {"public": public},
        setup,
    )
    return created.game_id, {s.seat: s.token for s in created.seats}


def enter(client, game_id: str, token: str) -> str:
    assert client.get(f"/g/{game_id}/{token}").status_code == 302
    return client.get(f"/g/{game_id}").get_data(as_text=True)


def history_of(client, game_id: str, token: str) -> str:
    """The history page's log, which tells every line of table talk (a game page's
    log leaves them to its chat panel)."""
    enter(client, game_id, token)
    return log_of(client.get(f"/g/{game_id}/history").get_data(as_text=True))


def log_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", LOG.search(page)[0]))


def without_details(page: str) -> str:
    return DETAILS.sub("", page)


def test_the_log_says_you_for_the_seat_looking_and_names_for_the_others(web):
    app, parts = web
    game_id, tokens = game(parts)
    parts.service.submit_action(game_id, tokens[1], "build L1 at 0,2", 1)
    parts.service.submit_action(game_id, tokens[2], "money R", 2)
    ann = log_of(enter(app.test_client(), game_id, tokens[1]))
    ben = log_of(enter(app.test_client(), game_id, tokens[2]))
    watched = log_of(app.test_client().get(f"/g/{game_id}/watch").get_data(as_text=True))
    played = (
        "played Burger Bar (Y01) from L1 at 0,2; a customer wanting food moves"
        " from the Main Entrance to Burger Bar (Y01)"
    )
    assert f"You {played}" in ann and "Ben played Burger Bar (Y02) from R1 as money" in ann
    assert f"Ann {played}" in ben and "You played Burger Bar (Y02) from R1 as money" in ben
    assert f"Ann {played}" in watched and "Ben played Burger Bar (Y02)" in watched
    assert "The game was created for you and Ben" in ann
    assert "The game was created for Ann and Ben" in watched
    for log in (ann, ben, watched):
        assert not SEAT_NUMBER.search(log), log


def test_the_history_page_tells_the_event_with_a_name(web):
    app, parts = web
    game_id, tokens = game(parts)
    parts.service.submit_action(game_id, tokens[1], "build L1 at 0,2", 1)
    parts.service.submit_action(game_id, tokens[2], "money R", 2)
    client = app.test_client()
    enter(client, game_id, tokens[2])
    page = client.get(f"/g/{game_id}/history?at=2").get_data(as_text=True)
    status = re.search(r'<p class="status".*?</p>', page, re.S)[0]
    assert "Ann played Burger Bar (Y01) from L1 at 0,2" in status
    assert not SEAT_NUMBER.search(status)
    mine = client.get(f"/g/{game_id}/history?at=3").get_data(as_text=True)
    assert "You played Burger Bar (Y02) from R1 as money" in mine


def test_since_your_last_visit_names_the_other_player(web):
    app, parts = web
    game_id, tokens = game(parts)
    client = app.test_client()
    enter(client, game_id, tokens[1])
    parts.service.submit_action(game_id, tokens[1], "money L", 1)
    parts.service.submit_action(game_id, tokens[2], "money R", 2)
    told = client.get(f"/g/{game_id}/live?since=1").get_json()["since"]
    assert [h["text"] for h in told] == [
        "Ben played Burger Bar (Y02) from R1 as money, gaining 1 note"
    ]


def test_other_events_name_the_player_and_agree_with_you(web):
    app, parts = web
    game_id, tokens = game(parts)
    service = parts.service
    service.say(game_id, tokens[2], "good luck")
    service.take_vacation(game_id, tokens[1], 2)
    ann = history_of(app.test_client(), game_id, tokens[1])
    ben = history_of(app.test_client(), game_id, tokens[2])
    assert "Ben said: good luck" in ann and "You said: good luck" in ben
    assert "You are on vacation until" in ann and "your clock stops" in ann
    assert "Ann is on vacation until" in ben and "their clock stops" in ben
    assert not SEAT_NUMBER.search(ann) and not SEAT_NUMBER.search(ben)


def test_a_player_s_words_are_never_rewritten(web):
    app, parts = web
    game_id, tokens = game(parts)
    parts.service.say(game_id, tokens[1], "seat 2 is bluffing")
    ben = history_of(app.test_client(), game_id, tokens[2])
    assert "Ann said: seat 2 is bluffing" in ben


def test_the_undo_plan_names_the_moves(web):
    _app, parts = web
    game_id, tokens = game(parts)
    parts.service.submit_action(game_id, tokens[1], "money L", 1)
    parts.service.submit_action(game_id, tokens[2], "money R", 2)
    plan = parts.service.undo_plan(game_id, 1)
    assert [m.text for m in plan.moves] == [
        "You played Burger Bar (Y01) from L1 as money, gaining 1 note",
        "Ben played Burger Bar (Y02) from R1 as money, gaining 1 note",
    ]


def test_the_narration_names_attractions_and_bays_never_their_ids(web):
    """Every attraction and bay built in whole games is told by its name."""
    _app, parts = web
    content = load("standard")
    slugs = set(content.attractions)
    bays = set(content.bays)
    told = []
    for seed in ("names-1", "names-2", "names-3"):
        game_id, tokens = game(parts, setup={"seed": seed}, names=("Ann", "Ben", "Cy"))
        service = parts.service
        while (doc := service.state_at(game_id))["turn"] is not None:
            seat = doc["turn"]
            legal = service.legal(game_id, seat)
            wanted = [a for a in legal if a.startswith(("attraction", "dock"))]
            builds = [a for a in legal if a.startswith("build")]
            service.submit_action(game_id, tokens[seat], (wanted or builds or legal)[0], doc["seq"])
        told += [h.text for h in service.history(game_id)]
    built = [t for t in told if any(attraction_name(s) in t for s in slugs)]
    docked = [t for t in told if any(content.bays[b].name in t for b in bays)]
    assert built and docked
    for text in told:
        assert not any(re.search(rf"(?<![\w-]){re.escape(s)}(?![\w-])", text) for s in slugs)
        assert not re.search(r"\bseat \d", text), text
    for text in docked:
        name = next(content.bays[b].name for b in bays if content.bays[b].name in text)
        assert f"the {name} (" in text


def test_the_details_fold_holds_seq_hash_and_seed_and_nothing_stands_up_front(web):
    app, parts = web
    game_id, tokens = game(parts, setup={"seed": "names-fold"})
    service = parts.service
    while (doc := service.state_at(game_id))["turn"] is not None:
        seat = doc["turn"]
        service.submit_action(game_id, tokens[seat], service.legal(game_id, seat)[0], doc["seq"])
    doc = service.state_at(game_id)
    client = app.test_client()
    pages = {
        "game": enter(client, game_id, tokens[1]),
        "watch": client.get(f"/g/{game_id}/watch").get_data(as_text=True),
        "history": client.get(f"/g/{game_id}/history?at=3").get_data(as_text=True),
    }
    for name, page in pages.items():
        fold = DETAILS.search(page)
        assert fold, name
        assert "<summary>Details</summary>" in fold[0]
        assert doc["head_hash"] in fold[0] and doc["head_hash"] not in without_details(page)
        assert re.search(r"\bseq \d+", fold[0]), name
        front = re.sub(r"<[^>]+>", "", without_details(page))
        assert not re.search(r"\bseq \d+:", front), name
    for name in ("game", "watch"):
        fold = DETAILS.search(pages[name])[0]
        assert "names-fold" in fold and doc["seed_sha256"] in fold
        assert "names-fold" not in without_details(pages[name])
        assert doc["seed_sha256"] not in without_details(pages[name])


def test_the_details_fold_wraps_its_codes_on_a_phone():
    css = SITE_CSS.read_text()
    rule = re.search(r"\.details code\s*\{([^}]*)\}", css)
    assert rule and "overflow-wrap: anywhere" in rule[1]


def test_a_running_game_keeps_its_seed_hidden_in_the_fold(web):
    app, parts = web
    game_id, tokens = game(parts, setup={"seed": "names-secret-seed"})
    for page in (
        enter(app.test_client(), game_id, tokens[1]),
        app.test_client().get(f"/g/{game_id}/watch").get_data(as_text=True),
    ):
        assert "names-secret-seed" not in page
        assert DETAILS.search(page)


def test_a_finished_game_opens_on_its_final_results(web):
    app, parts = web
    game_id, tokens = game(parts, setup={"seed": "names-end"})
    service = parts.service
    while (doc := service.state_at(game_id))["turn"] is not None:
        seat = doc["turn"]
        service.submit_action(game_id, tokens[seat], service.legal(game_id, seat)[0], doc["seq"])
    doc = service.state_at(game_id)
    for page in (
        enter(app.test_client(), game_id, tokens[1]),
        app.test_client().get(f"/g/{game_id}/watch").get_data(as_text=True),
    ):
        results = page.index('class="results"')
        malls = page.index('class="malls"')
        dispenser = page.index('class="dispenser')
        assert results < malls < dispenser
        section = re.sub(r"<[^>]+>", " ", page[results:malls])
        first = min(doc["players"], key=lambda p: -p["score"]["total"])
        assert first["name"] in section and str(first["score"]["total"]) in section
        assert "winner" in section.lower()


def test_a_tile_an_undo_put_back_in_the_supply_is_hidden_with_its_name(web):
    """docs/games/mall.md section 11: Ann draws Y03 (a Burger Bar) into L4, Ben builds it, then
    both take it all back. The log still tells who made the undone moves, but not
    what they were: a tile back in the supply is neither named nor numbered (its name
    would tell the next draw)."""
    app, parts = web
    game_id, tokens = game(parts)
    service = parts.service
    service.submit_action(game_id, tokens[1], "money L")
    service.submit_action(game_id, tokens[2], "build L4 at 0,2")
    service.undo(game_id, tokens[1])
    service.answer_undo(game_id, tokens[2], True)
    assert "Y03" not in service.state_at(game_id)["dispenser"]["L"]
    for page in (
        enter(app.test_client(), game_id, tokens[1]),
        enter(app.test_client(), game_id, tokens[2]),
        app.test_client().get(f"/g/{game_id}/watch").get_data(as_text=True),
    ):
        told = log_of(page)
        undone = [line for line in told.splitlines() if "taken back since" in line]
        assert len(undone) == 2, told
        assert re.search(r"\b(Ann|You) played a move that was taken back since", undone[0])
        assert re.search(r"\b(Ben|You) played a move that was taken back since", undone[1])
        assert not shows(told, "Y03") and "Burger Bar" not in told and "L4 at 0,2" not in told


def test_the_status_names_who_is_to_move_and_the_undo_button_has_no_seq(web):
    app, parts = web
    game_id, tokens = game(parts)
    parts.service.submit_action(game_id, tokens[1], "money L", 1)
    page = enter(app.test_client(), game_id, tokens[1])
    status = re.sub(r"<[^>]+>", "", re.search(r'<p class="status".*?</p>', page, re.S)[0])
    assert "Round 1: Ben to move" in status and not SEAT_NUMBER.search(status)
    button = re.search(r"<button[^>]*>(Take back my last move[^<]*)</button>", page)[1]
    assert button == "Take back my last move…"


def test_a_seat_handed_over_keeps_its_old_player_s_name_for_their_moves(web):
    app, parts = web
    game_id, tokens = game(parts)
    service = parts.service
    service.submit_action(game_id, tokens[1], "money L", 1)
    service.replace_seat(game_id, 1, "human", name="Cara", email="cara@example.com")
    told = [h.text for h in service.history(game_id)]
    assert told == [
        "the game was created for Ann and Ben",
        "Ann played Burger Bar (Y01) from L1 as money, gaining 1 note",
        "Ann's seat is now played by Cara",
    ]
    watched = log_of(app.test_client().get(f"/g/{game_id}/watch").get_data(as_text=True))
    assert "Ann's seat is now played by Cara" in watched and not SEAT_NUMBER.search(watched)


def test_a_name_is_told_as_its_player_wrote_it(web):
    _app, parts = web
    game_id, tokens = game(parts, names=("de Vries", "Ben"))
    parts.service.submit_action(game_id, tokens[1], "money L", 1)
    told = [h.text for h in parts.service.history(game_id)]
    assert told[1].startswith("de Vries played Burger Bar (Y01)")
