"""Typed events (docs/design.md events contract): each stored payload decodes to its frozen
dataclass and encodes back to exactly what was stored; old versions are upcast; an
unknown type or a malformed payload is refused with a message that says what is wrong."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem import events
from pbem.events import (
    ActionTaken,
    Envelope,
    EventError,
    GameCreated,
    Holder,
    SeatReplaced,
    TableTalk,
    UndoDone,
    decode,
    encode,
    read,
    stored_payload,
)
from pbem.games import GAMES

RECORDED = Path(__file__).parents[1] / "integration" / "recorded" / "mall_v1_events.json"

# -- payloads in the shapes today's service writes ----------------------------------------

seats = st.integers(min_value=1, max_value=4)
seqs = st.integers(min_value=1, max_value=2**31 - 1)
words = st.text(max_size=20)
hashes = st.text("0123456789abcdef", min_size=64, max_size=64)
numbers = st.integers() | st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | numbers | words,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=10,
)
json_objects = st.dictionaries(words, json_values, max_size=4)
controllers = st.sampled_from(["human", "bot:greedy", "bot:random"])


@st.composite
def game_created(draw: st.DrawFn) -> dict:
    count = draw(st.integers(2, 4))
    players = [
        {
            "seat": seat,
            "name": draw(words),
            "email": draw(st.none() | st.emails()),
            "controller": draw(controllers),
            "token_sha256": draw(hashes),
            "token_nonce": draw(words),
        }
        for seat in range(1, count + 1)
    ]
    return {
        "game_id": draw(st.text("abcdefghijklmnopqrstuvwxyz234567", min_size=16, max_size=16)),
        "game": draw(st.sampled_from(sorted(GAMES))),
        "content": draw(words),
        "engine_version": draw(words),
        "players": players,
        "options": draw(json_objects),
        "setup": draw(json_objects),
        "seed_sha256": draw(st.none() | hashes),
        "setup_chosen": draw(st.booleans()),
        "name": draw(st.none() | words),
        "languages_open": draw(st.lists(st.integers(1, count), unique=True)),
    }


def seat_replaced() -> st.SearchStrategy[dict]:
    to_bot = st.fixed_dictionaries(
        {"seat": seats, "controller": st.sampled_from(["bot:greedy", "bot:random"])}
    )
    to_person = st.fixed_dictionaries(
        {
            "seat": seats,
            "controller": st.just("human"),
            "name": words,
            "email": st.none() | st.emails(),
            "token_sha256": hashes,
            "token_nonce": words,
        }
    )
    return to_bot | to_person


PAYLOADS = {
    "GameCreated": game_created(),
    "ActionTaken": st.fixed_dictionaries({"seat": seats, "action": json_objects}),
    "Resolved": st.fixed_dictionaries({"action": json_objects}),
    "TurnTimedOut": st.fixed_dictionaries(
        {
            "seat": seats,
            "action": json_objects,
            "policy": st.sampled_from(["bot_plays", "replace"]),
        }
    ),
    "SeatReplaced": seat_replaced(),
    "UndoRequested": st.fixed_dictionaries({"seat": seats, "back_to": seqs}),
    "UndoAnswered": st.fixed_dictionaries({"seat": seats, "request": seqs, "agree": st.booleans()}),
    "UndoDone": st.fixed_dictionaries(
        {"back_to": seqs, "asked_by": seats, "agreed": st.lists(seats, max_size=3)}
    ),
    "UndoLapsed": st.fixed_dictionaries({"seat": seats, "request": seqs, "reason": words}),
    "MailPreferenceChanged": st.fixed_dictionaries(
        {
            "seat": seats,
            "mail": st.sampled_from(["every", "digest", "none"]),
            "turn": st.sampled_from(["every", "digest", "none"]),
            "round": st.sampled_from(["every", "digest", "none"]),
        }
    ),
    "LanguageChosen": st.fixed_dictionaries(
        {"seat": seats, "language": st.sampled_from(["en", "de"])}
    ),
    "VacationStarted": st.fixed_dictionaries(
        {"seat": seats, "days": st.integers(1, 60), "until": words}
    ),
    "TableTalk": st.fixed_dictionaries(
        {"seat": seats, "text": st.text(max_size=500)},
        optional={"to": st.lists(seats, min_size=1, max_size=3, unique=True)},
    ),
    "SpectatorTalk": st.fixed_dictionaries({"name": words, "text": st.text(max_size=500)}),
    "SeatResigned": st.fixed_dictionaries(
        {"seat": seats, "replaced_by": st.sampled_from(["", "bot:greedy", "bot:random"])}
    ),
    "RematchOffered": st.fixed_dictionaries({"seat": seats}),
    "RematchAccepted": st.fixed_dictionaries({"seat": seats, "offer": seqs}),
    "RematchClosed": st.fixed_dictionaries(
        {
            "offer": seqs,
            "reason": st.sampled_from(["declined", "lapsed"]),
            "seat": st.none() | seats,
        }
    ),
    "RematchStarted": st.fixed_dictionaries(
        {
            "offer": seqs,
            "new_game_id": st.text("abcdefghijklmnopqrstuvwxyz234567", min_size=16, max_size=16),
        }
    ),
}


def test_every_event_type_has_payloads_to_try():
    assert set(PAYLOADS) == set(events.BY_TYPE) == set(events.VERSIONS)


@pytest.mark.parametrize("type_name", sorted(PAYLOADS))
@given(data=st.data())
def test_a_stored_payload_decodes_and_encodes_back_to_itself(type_name, data):
    fields = data.draw(PAYLOADS[type_name])
    stored = {**fields, "v": events.VERSIONS[type_name]}
    event = decode(type_name, stored)
    assert type_name == type(event).TYPE
    assert encode(event) == (type_name, events.VERSIONS[type_name], fields)
    assert stored_payload(event) == stored
    assert decode(type_name, fields) == event  # "v" may be left out: the current one


def test_typed_fields_read_as_their_classes():
    event = decode(
        "SeatReplaced",
        {
            "v": 1,
            "seat": 2,
            "controller": "human",
            "name": "Zoë",
            "email": None,
            "token_sha256": "a" * 64,
            "token_nonce": "n",
        },
    )
    assert event == SeatReplaced(2, "human", Holder("Zoë", None, "a" * 64, "n"))
    assert decode("SeatReplaced", {"v": 1, "seat": 1, "controller": "bot:greedy"}).holder is None
    done = decode("UndoDone", {"v": 1, "back_to": 3, "asked_by": 1, "agreed": [2, 3]})
    assert done == UndoDone(back_to=3, asked_by=1, agreed=(2, 3))
    with pytest.raises(dataclasses.FrozenInstanceError):
        done.back_to = 1  # type: ignore[misc]


def test_a_recorded_v1_log_is_read_with_its_upcasts_and_defaults():
    rows = json.loads(RECORDED.read_text(encoding="utf-8"))
    created = rows[0]["payload"]
    assert "setup_chosen" not in created  # written before the flag existed
    first = read(rows[0]["type"], created, created)
    assert isinstance(first, GameCreated)
    assert first.setup_chosen is False  # an old game's setup was drawn by the server
    assert [p.name for p in first.players] == ["Zoë", "Ben"]
    moves = [read(r["type"], r["payload"], created) for r in rows[1:]]
    assert moves == [
        ActionTaken(1, {"type": "money", "column": "L"}),
        ActionTaken(2, {"type": "build", "slot": "L1", "x": 1, "y": 2}),
        ActionTaken(1, {"type": "money", "column": "R"}),
    ]
    # once upcast, the v2 payload round-trips like any written today
    upcast = events.upcast("ActionTaken", rows[1]["payload"], created)
    assert stored_payload(decode("ActionTaken", upcast)) == upcast


def test_a_public_line_is_stored_as_before_private_lines_existed():
    """A line to everyone keeps the payload every line had (so old logs, their
    hashes and what a line written today stores are alike); a private line adds
    `to`, and reads back as itself."""
    assert stored_payload(TableTalk(1, "hi")) == {"seat": 1, "text": "hi", "v": 1}
    assert decode("TableTalk", {"seat": 1, "text": "hi", "v": 1}) == TableTalk(1, "hi", None)
    private = TableTalk(1, "psst", (3,))
    assert stored_payload(private) == {"seat": 1, "text": "psst", "to": [3], "v": 1}
    assert decode("TableTalk", stored_payload(private)) == private


def test_an_unknown_type_is_refused_by_name():
    with pytest.raises(EventError, match="unknown event type 'GameRenamed'"):
        decode("GameRenamed", {"v": 1})
    with pytest.raises(EventError, match="unknown event type 'GameRenamed'"):
        read("GameRenamed", {"v": 1}, {})


@pytest.mark.parametrize(
    ("type_name", "payload", "said"),
    [
        ("ActionTaken", {"v": 2, "seat": 1}, r"action: Field required"),
        ("ActionTaken", {"v": 2, "seat": "1", "action": {}}, r"seat: Input should be a valid int"),
        ("ActionTaken", {"v": 2, "seat": True, "action": {}}, r"seat: Input should be a valid int"),
        ("ActionTaken", {"v": 2, "seat": 1, "action": "money L"}, r"action: Input should be"),
        ("UndoAnswered", {"v": 1, "seat": 1, "request": 2, "agree": 1}, r"agree: Input should"),
        ("UndoDone", {"v": 1, "back_to": 1, "asked_by": 1, "agreed": [], "by": 2}, r"by: Unexp"),
        ("SeatReplaced", {"v": 1, "seat": 1, "controller": "human", "name": "A"}, r"holder.email"),
        ("SeatReplaced", {"v": 1, "seat": 1, "controller": "x", "holder": {}}, r"no key 'holder'"),
        ("MailPreferenceChanged", ["every"], r"a MailPreferenceChanged payload is a JSON object"),
        ("ActionTaken", {"seat": 1, "action": {"x": float("inf")}}, r"is not JSON data"),
        ("VacationStarted", {"v": 2, "seat": 1, "days": 1, "until": ""}, r"v2 is not the current"),
        ("TableTalk", {"v": 1, "seat": 1, "text": "hi", "to": None}, r"leaves 'to' out"),
        ("TableTalk", {"v": 1, "seat": 1, "text": "hi", "to": ["2"]}, r"to.0: Input should"),
    ],
)
def test_a_malformed_payload_is_refused_saying_what_is_wrong(type_name, payload, said):
    with pytest.raises(EventError, match=said):
        decode(type_name, payload)


def test_a_version_newer_than_the_server_is_refused_on_reading():
    with pytest.raises(EventError, match=r"ActionTaken v3 is newer than this server \(v2\)"):
        read("ActionTaken", {"v": 3, "seat": 1, "action": {}}, {"game": "mall"})


def test_only_event_types_encode():
    with pytest.raises(EventError, match="Holder is not an event type"):
        encode(Holder("A", None, "h", "n"))  # type: ignore[arg-type]


def envelope(type_name: str, payload: dict, seq: int = 7) -> Envelope:
    return Envelope("game1", seq, type_name, payload, "seat:1", "t", None, "p", "h")


def test_an_envelope_decodes_its_event_once():
    held = envelope("ActionTaken", {"v": 2, "seat": 1, "action": {"type": "money"}})
    assert held.event == ActionTaken(1, {"type": "money"})
    assert held.event is held.event


def test_an_envelope_that_cannot_be_read_names_its_game_and_seq():
    broken = envelope("UndoDone", {"v": 1, "back_to": "two"}, seq=9)
    with pytest.raises(EventError, match=r"^game game1 seq 9: a UndoDone v1 payload is malformed"):
        _ = broken.event


def test_moves_in_force_skip_what_an_undo_took_back():
    move = {"v": 2, "seat": 1, "action": {"type": "money"}}
    log = [
        envelope("ActionTaken", move, 2),
        envelope("ActionTaken", move, 3),
        envelope("UndoDone", {"v": 1, "back_to": 2, "asked_by": 1, "agreed": []}, 4),
        envelope("TurnTimedOut", {**move, "v": 1, "policy": "bot_plays"}, 5),
        envelope("MailPreferenceChanged", {"v": 1, "seat": 1, "mail": "none"}, 6),
    ]
    assert [m.seq for m in events.moves_in_force(log)] == [2, 5]
