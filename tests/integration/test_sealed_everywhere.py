"""A sealed move is hidden on every surface: for every registered game whose
examples seal a move, two tables play the same example except that one seat's
sealed move differs; every other viewer (the other seats, a spectator) must then
get the same answer from every page, API answer, chain, log file, live poll,
history step, position text, turn mail and reminder of both, at every seq up to
the head, byte for byte once the games' own ids, links and hashes are set aside.
The seat that moved sees its own move (so the walk can see a difference)."""

from __future__ import annotations

import re

import pytest

from pbem.games import GAMES
from pbem.service import PlayerSpec
from pbem.service.notices import Kind

from support import MailWriter

HASHES = re.compile(r"\b[0-9a-f]{32,128}\b")  # head hashes, commitments, salts
RANDOM_VALUES = re.compile(
    r'name="(csrf_token|key)" value="[^"]*"|data-csrf="[^"]*"|nonce-[^"\' ]+|nonce="[^"]*"'
)


def sealing_examples():
    """(game, example, the index of its first sealed move) of every game that seals."""
    found = []
    for name, plugin in GAMES.items():
        rules = plugin.rules
        for example in plugin.examples():
            state = rules.setup(list(example.players), dict(example.setup))
            for index, (seat, text) in enumerate(example.moves):
                action = rules.check(state, rules.parse(text), seat)
                if rules.sealed(state, action):
                    found.append(pytest.param(name, example, index, id=f"{name}-{example.about}"))
                    break
                state = rules.perform(state, action)
                while (due := rules.resolution(state)) is not None:
                    state = rules.perform(state, due)
            else:
                continue
            break
    return found


def other_move(rules, state, seat, given):
    """A legal move of `seat` in `state` other than `given` (in notation)."""
    for action in rules.legal_actions(state, seat):
        if rules.format(action) != given:
            return rules.format(action)
    raise AssertionError(f"seat {seat} has no other move than {given!r}")


def play(parts, example, moves):
    service = parts.service
    created = service.create_game(
        [PlayerSpec(n, f"{n.lower()}@example.com") for n in example.players],
        {"public": True},
        dict(example.setup),
        game=example_game(example),
    )
    tokens = {s.seat: s.token for s in created.seats}
    for seat, text in moves:
        service.submit_action(created.game_id, tokens[seat], text)
    return created.game_id, tokens


def example_game(example):
    return next(n for n, p in GAMES.items() if example in p.examples())


def surfaces(app, parts, game_id, tokens, viewer):
    """Everything `viewer` (a seat, None: a stranger) may read of the game, by name."""
    client = app.test_client()
    headers = {}
    if viewer is not None:
        assert client.get(f"/g/{game_id}/{tokens[viewer]}").status_code == 302
        headers = {"Authorization": f"Bearer {tokens[viewer]}"}
    head = parts.service.state_at(game_id)["seq"]
    urls = [f"/g/{game_id}", f"/g/{game_id}/watch", f"/g/{game_id}/live"]
    urls += [f"/g/{game_id}/history?at={at}" for at in range(1, head + 1)]
    urls += [f"/g/{game_id}/log.json"]
    api = ["", "/legal", "/log", "/chain", "/chat"]
    seen = {url: client.get(url).get_data(as_text=True) for url in urls}
    for part in api:
        answer = client.get(f"/api/games/{game_id}{part}", headers=headers)
        seen[f"/api{part}"] = answer.get_data(as_text=True)
    service = parts.service
    for at in range(1, head + 1):
        seen[f"describe@{at}"] = service.describe(game_id, at, seat=viewer)
    seen["history"] = "\n".join(h.text for h in service.history(game_id, viewer))
    return seen


def mails(parts, clock, game_id, viewer):
    """The mails `viewer` is written now: its turn mail and a reminder, if the game
    waits on it (subject and both bodies)."""
    if viewer is None or viewer not in parts.service.state_at(game_id)["waiting"]:
        return {}
    writer = MailWriter(parts, clock, game_id)
    to = f"{parts.service.state_at(game_id)['players'][viewer - 1]['name'].lower()}@example.com"
    written = {
        "turn mail": writer.compose(Kind.YOUR_TURN, viewer, to, {}),
        "reminder": writer.compose(Kind.REMINDER, viewer, to, {"hours": 24}),
    }
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
        out[url] = RANDOM_VALUES.sub("", HASHES.sub("HASH", text))
    return out


@pytest.mark.parametrize(("name", "example", "index"), sealing_examples())
def test_nobody_else_can_tell_a_sealed_move_on_any_surface(web, clock, name, example, index):
    app, parts = web
    rules = GAMES[name].rules
    before = example.moves[:index]
    seat, given = example.moves[index]
    state = rules.setup(list(example.players), dict(example.setup))
    for s, text in before:
        state = rules.perform(state, rules.check(state, rules.parse(text), s))
    changed = other_move(rules, state, seat, given)
    one = play(parts, example, [*before, (seat, given)])
    two = play(parts, example, [*before, (seat, changed)])
    ids = (one[0], two[0])
    secrets = [*one[1].values(), *two[1].values()]
    for viewer in [*(s for s in range(1, len(example.players) + 1) if s != seat), None]:
        told = {**surfaces(app, parts, *one, viewer), **mails(parts, clock, one[0], viewer)}
        other = {**surfaces(app, parts, *two, viewer), **mails(parts, clock, two[0], viewer)}
        first, second = same(told, ids, secrets), same(other, ids, secrets)
        assert set(first) == set(second)
        assert viewer is None or "turn mail" in first  # the game waits on every power
        differ = [url for url in first if first[url] != second[url]]
        assert not differ, f"viewer {viewer} tells the sealed moves apart on {differ}"
    # the seat that moved sees its own move: the walk could see a difference
    mine = same(surfaces(app, parts, *one, seat), ids, secrets)
    theirs = same(surfaces(app, parts, *two, seat), ids, secrets)
    assert any(mine[url] != theirs[url] for url in mine)
