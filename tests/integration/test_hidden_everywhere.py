"""The hidden-information walk over every registered game: two tables that differ
only in what some seats may not see — an example and its twin (the game's own
declaration of what it hides: for the mall, the supply's order past the tiles
drawn and a seat's secret card), or an example and the same one with a seat's
sealed move changed — must answer every other viewer (each other seat, a
spectator) the same on every surface, at every seq up to the head, byte for byte
once the tables' own ids, links and hashes are set aside: pages, API answers,
chain, log file, live poll, history steps, position texts, turn mail, reminder,
round and phase mails, chat mail, digest, My games and the feeds. For a game of
turns, a move that draws something is then played at both tables and taken back
with everyone's consent: what it drew is hidden again, and the walk is repeated.
The seats that may see the difference do (so the walk could see one)."""

from __future__ import annotations

import contextlib
import re
from dataclasses import replace

import pytest

from pbem.games import GAMES, Sequential
from pbem.service import PlayerSpec
from pbem.service.notices import Kind, Moot

from support import FEED, MailWriter, feed_of

HASHES = re.compile(r"\b[0-9a-f]{32,128}\b")  # head hashes, commitments, salts
RANDOM_VALUES = re.compile(
    r'name="(csrf_token|key)" value="[^"]*"|data-csrf="[^"]*"|nonce-[^"\' ]+|nonce="[^"]*"'
    r'|(?<=/feeds/)[^"<\s]+|(?<=DTSTAMP:)\w+|data-tag="[^"]*"'
)  # (data-tag: the dashboard's digest of its games, ids and all)


def states_of(rules, example, setup=None):
    """The example's states, from the setup to the head, the game's resolutions taken."""
    state = rules.setup(list(example.players), dict(example.setup if setup is None else setup))
    yield state
    for seat, text in example.moves:
        state = rules.perform(state, rules.check(state, rules.parse(text), seat))
        while (due := rules.resolution(state)) is not None:
            state = rules.perform(state, due)
        yield state


def first_sealed(rules, example):
    """The index of the example's first sealed move, or None."""
    for index, ((seat, text), state) in enumerate(
        zip(example.moves, states_of(rules, example), strict=False)
    ):
        if rules.sealed(state, rules.check(state, rules.parse(text), seat)):
            return index
    return None


def pairs():
    """(game, example, how) of every pair of tables to walk: "twin", or the index of
    the example's first sealed move (the first such example of each game)."""
    found = []
    for name, plugin in GAMES.items():
        sealing = False
        for example in plugin.examples():
            if example.twin is not None:
                found.append(pytest.param(name, example, "twin", id=f"{name}-twin"))
            index = None if sealing else first_sealed(plugin.rules, example)
            if index is not None:
                sealing = True
                found.append(pytest.param(name, example, index, id=f"{name}-sealed"))
    return found


def test_every_game_that_hides_something_is_walked():
    """A game hides something when one of its example positions keeps something from
    a viewer (`secrets`) or one of its moves is sealed: then it has a pair to walk.
    (Nim hides nothing: every state of its examples is the same to everyone.)"""
    walked = {p.values[0] for p in pairs()}
    for name, plugin in GAMES.items():
        rules = plugin.rules
        hides = False
        for example in plugin.examples():
            seats = [None, *range(1, len(example.players) + 1)]
            for state in states_of(rules, example):
                hides = hides or any(
                    rules.secrets(state, v) for v in seats if not rules.over(state)
                )
            hides = hides or first_sealed(rules, example) is not None
        assert hides == (name in walked), name
    assert {"mall", "diplomacy"} <= walked


def other_move(rules, state, seat, given):
    """A legal move of `seat` in `state` other than `given` (in notation)."""
    for action in rules.legal_actions(state, seat):
        if rules.format(action) != given:
            return rules.format(action)
    raise AssertionError(f"seat {seat} has no other move than {given!r}")


TWO = "-2"  # the second table's players' addresses: ann-2@example.com


def email(name, tag=""):
    return f"{name.lower()}{tag}@example.com"


def play(parts, name, example, moves, setup, tag=""):
    """A table of the example's game (its people's addresses tagged with `tag`)."""
    service = parts.service
    people = [PlayerSpec(n, email(n, tag)) for n in example.players]
    created = service.create_game(people, {"public": True}, dict(setup), game=name)
    tokens = {s.seat: s.token for s in created.seats}
    for seat, text in moves:
        service.submit_action(created.game_id, tokens[seat], text)
    return created.game_id, tokens


def surfaces(app, parts, game_id, tokens, viewer):
    """Everything `viewer` (a seat, None: a stranger) may read of the game, by name."""
    client = app.test_client()
    headers = {}
    seen = {}
    if viewer is not None:
        assert client.get(f"/g/{game_id}/{tokens[viewer]}").status_code == 302
        headers = {"Authorization": f"Bearer {tokens[viewer]}"}
        feed = feed_of(client)
        seen["/my-games"] = FEED.sub("", client.get("/my-games").get_data(as_text=True))
        for kind in ("atom", "ics"):
            feed_text = client.get(f"/feeds/{feed}.{kind}").get_data(as_text=True)
            seen[f"feed.{kind}"] = feed_text.replace("\r\n ", "")  # a long line unfolded
    head = parts.service.state_at(game_id)["seq"]
    urls = [f"/g/{game_id}", f"/g/{game_id}/watch", f"/g/{game_id}/live"]
    urls += [f"/g/{game_id}/live?since={at}" for at in (0, max(head - 3, 0))]
    urls += [f"/g/{game_id}/history?at={at}" for at in range(1, head + 1)]
    urls += [f"/g/{game_id}/log.json"]
    seen.update({url: client.get(url).get_data(as_text=True) for url in urls})
    for part in ("", "/legal", "/log", "/chain", "/chat"):
        answer = client.get(f"/api/games/{game_id}{part}", headers=headers)
        seen[f"/api{part}"] = answer.get_data(as_text=True)
    service = parts.service
    for at in range(1, head + 1):
        seen[f"describe@{at}"] = service.describe(game_id, at, seat=viewer)
    seen["history"] = "\n".join(h.text for h in service.history(game_id, viewer))
    return seen


def mails(parts, clock, game_id, viewer):
    """The mails `viewer` (a seat) is written now: its turn mail and a reminder if
    the game waits on it, the mail of each round or phase that ended, the chat mail
    of the last line said, and the daily digest (subject and both bodies)."""
    if viewer is None:
        return {}
    service = parts.service
    writer = MailWriter(parts, clock, game_id)
    seat = next(s for s in parts.service.seat_links(game_id) if s.seat == viewer)
    to = seat.email
    written = {}
    if viewer in service.state_at(game_id)["waiting"]:
        written["turn mail"] = writer.compose(Kind.YOUR_TURN, viewer, to, {}, again=True)
        written["reminder"] = writer.compose(Kind.REMINDER, viewer, to, {"hours": 24}, again=True)
    told = service.history(game_id, viewer)
    for h in (h for h in told if h.closes_round):
        written[f"round mail {h.round}"] = writer.compose(
            Kind.ROUND_SCORED, viewer, to, {"round": h.round}, seq=h.seq, again=True
        )
    said = [h for h in told if h.type == "TableTalk" and h.seat != viewer]
    with contextlib.suppress(Moot):  # (moot once the viewer's page has shown the line)
        written["chat mail"] = writer.compose(
            Kind.CHAT, viewer, to, {}, seq=said[-1].seq, again=True
        )
    written["digest"] = writer.compose(
        Kind.DIGEST, None, to, {"seats": [[game_id, viewer]]}, game=False
    )
    return {
        name: "\n".join(
            [
                str(message["Subject"]),
                message.get_body(("plain",)).get_content(),
                message.get_body(("html",)).get_content(),
            ]
        )
        for name, message in written.items()
    }


def same(seen, game_ids, tokens):
    """The answers with what differs between two tables anyway taken out."""
    out = {}
    for url, text in seen.items():
        for game_id in game_ids:
            text = text.replace(game_id, "GAME")
            url = url.replace(game_id, "GAME")  # the two tables' pages by the same name
        for token in tokens:
            text = text.replace(token, "TOKEN")
        text = text.replace(f"{TWO}@example.com", "@example.com")
        out[url] = RANDOM_VALUES.sub("", HASHES.sub("HASH", text))
    return out


def walk(app, parts, clock, one, two, players, knows, chat=True):
    """Every viewer outside `knows` is told the same by both tables; a seat of
    `knows` is not (so the walk can see a difference). `chat`: whether the viewers'
    pages have not yet shown them the last line said (the chat mail tells it)."""
    ids = (one[0], two[0])
    secrets = [*one[1].values(), *two[1].values()]
    for viewer in [*(s for s in range(1, players + 1) if s not in knows), None]:
        told = {**mails(parts, clock, one[0], viewer), **surfaces(app, parts, *one, viewer)}
        other = {**mails(parts, clock, two[0], viewer), **surfaces(app, parts, *two, viewer)}
        first, second = same(told, ids, secrets), same(other, ids, secrets)
        assert set(first) == set(second)
        assert viewer is None or {"feed.atom", "digest"} <= set(first)
        assert viewer is None or not chat or "chat mail" in first
        differ = [url for url in first if first[url] != second[url]]
        assert not differ, f"viewer {viewer} tells the two tables apart on {differ}"
    for seat in knows:
        mine = same(surfaces(app, parts, *one, seat), ids, secrets)
        theirs = same(surfaces(app, parts, *two, seat), ids, secrets)
        assert any(mine[url] != theirs[url] for url in mine), f"seat {seat} sees no difference"


@pytest.mark.parametrize(("name", "example", "how"), pairs())
def test_nobody_else_can_tell_the_tables_apart_on_any_surface(web, clock, name, example, how):
    app, parts = web
    rules = GAMES[name].rules
    if how == "twin":
        moves, knows = list(example.moves), example.twin.knows
        one = play(parts, name, example, moves, example.setup)
        two = play(parts, name, example, moves, example.twin.setup, TWO)
    else:
        before = list(example.moves[:how])
        seat, given = example.moves[how]
        *_, state = states_of(rules, replace(example, moves=tuple(before)))
        changed = other_move(rules, state, seat, given)
        knows = frozenset({seat})
        one = play(parts, name, example, [*before, (seat, given)], example.setup)
        two = play(parts, name, example, [*before, (seat, changed)], example.setup, TWO)
    speaker = min(knows)
    for game_id, tokens in (one, two):
        parts.service.say(game_id, tokens[speaker], "good luck, everyone")
    players = len(example.players)
    walk(app, parts, clock, one, two, players, knows)
    if how != "twin" or not isinstance(rules, Sequential):
        return
    # a move that draws something, and one that names what it drew (told apart at
    # the two tables), then both taken back with everyone's consent
    service = parts.service
    mover = service.state_at(one[0])["turn"]
    action = service.legal(one[0], mover)[0]
    for game_id, tokens in (one, two):
        service.submit_action(game_id, tokens[mover], action)
    drawn = [service.state_at(game_id, seat=mover) for game_id, _ in (one, two)]
    assert drawn[0] != drawn[1], "the move drew nothing: the tables cannot tell it"
    after = service.state_at(one[0])["turn"]
    told = [
        {o["text"]: o["preview"] for o in service.turn_options(t[0], after)} for t in (one, two)
    ]
    naming = sorted(a for a in told[0] if a in told[1] and told[0][a] != told[1][a])
    assert naming, "no move names what was drawn: the walk could not see it told"
    for game_id, tokens in (one, two):
        service.submit_action(game_id, tokens[after], naming[0])
    for game_id, tokens in (one, two):
        service.undo(game_id, tokens[mover])
        for seat in (s for s in tokens if s != mover):
            service.answer_undo(game_id, tokens[seat], True)
    walk(app, parts, clock, one, two, players, knows, chat=False)
