"""The queries: a game's state and text for a viewer (never showing what the head
hides from them), the legal actions with previews, what happened as sentences, the
seats' links and settings, the undo request waiting for a seat. Nothing here
writes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from pbem.events import TALK, UndoAnswered, UndoRequested, parse_timestamp
from pbem.games import Rules, Sequential, get
from pbem.games.names import said_players
from pbem.i18n import gettext as _
from pbem.store import log, states

from . import history, rows, veiled
from . import options as game_options
from .errors import Happened, NotFound, SeatLink
from .rows import Record
from .tokens import seat_token
from .undo import UNDO_WAIT, taken_back
from .unit import Context, is_bot


def seat_of(ctx: Context, game_id: str, token: str | None) -> int | None:
    """The seat a token plays in this game; None (a spectator) without a token.
    A token that is not valid here is refused (Forbidden)."""
    with ctx.reading() as conn:
        ctx.row(conn, game_id)
        return ctx.seat_for(conn, rows.seats(conn, game_id), token).seat if token else None


def state_at(
    ctx: Context, game_id: str, seq: int | None = None, seat: int | None = None
) -> dict[str, Any]:
    """The state document at `seq` (default: the head) as `seat` may see it."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        rules = get(row.game)
        seq, state = shown_at(ctx, conn, rules, row, seq)
        return document(rules, state, seat, game_id, seq, row.head_hash)


def document(
    rules: Rules, state: Any, seat: int | None, game_id: str, seq: int, head_hash: str
) -> dict[str, Any]:
    """The state document of `state` for `seat`: the game's view, and what every
    game's has — the game's id, seq and head, the seats it waits on (`waiting`, of
    several at once too) and whether the viewer may act now (`acting`: the seat it
    waits on, or a seat that may still change its sealed move)."""
    doc = rules.view(state, seat)
    waiting = rules.active(state)
    acting = seat is not None and (
        seat in waiting
        or (not isinstance(rules, Sequential) and bool(rules.legal_actions(state, seat)))
    )
    common = {"id": game_id, "seq": seq, "head_hash": head_hash}
    # a bot's name in the reader's language (the API reads English: as stored)
    return said_players({**common, **doc, "waiting": sorted(waiting), "acting": acting})


def describe(ctx: Context, game_id: str, seq: int | None = None, seat: int | None = None) -> str:
    """The position at `seq` (default: the head) as text, as `seat` may see it."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        rules = get(row.game)
        seq, state = shown_at(ctx, conn, rules, row, seq)
        return described(rules, row, seq, state, seat)


def described(rules: Rules, row: Record, seq: int, state: Any, seat: int | None) -> str:
    """The position `state` (at `seq` of the game `row`) as text, as `seat` may see it."""
    header = _(
        "Game %(game)s at seq %(seq)s of %(head)s (head %(hash)s)",
        game=row.id,
        seq=seq,
        head=row.head_seq,
        hash=row.head_hash,
    )
    return header + "\n" + rules.describe(state, seat)


def shown_at(
    ctx: Context, conn: Connection, rules: Rules, row: Record, seq: int | None
) -> tuple[int, Any]:
    """The seq and the rules state shown for it. History shows nothing the head
    hides: at a seq inside moves an undo took back after they had shown something
    (veiled), the position the undo went back to stands in for it."""
    head = ctx.state(conn, rules, row)
    if seq is None or seq == row.head_seq:
        return row.head_seq, head
    if not 1 <= seq < row.head_seq:
        raise NotFound(
            _(
                "game %(game)s has seq 1 to %(head)s, not %(seq)s",
                game=row.id,
                head=row.head_seq,
                seq=seq,
            )
        )
    shown = veiled.veils(conn, rules, row.id, (s.seat for s in rows.seats(conn, row.id)))
    return seq, states.state_at(conn, rules, row.id, shown.shown_for(seq))


def legal(ctx: Context, game_id: str, seat: int | None) -> list[str]:
    """The seat's legal actions now, in canonical notation (none for others)."""
    if seat is None:
        return []
    rules, state = ctx.rules_and_head(game_id)
    return [rules.format(a) for a in rules.legal_actions(state, seat)]


def turn_options(ctx: Context, game_id: str, seat: int | None) -> list[dict[str, Any]]:
    """The seat's legal actions now, each with its JSON form and a preview of what
    it would do."""
    if seat is None:
        return []
    rules, state = ctx.rules_and_head(game_id)
    return turn_options_in(rules, state, seat)


def turn_options_in(rules: Rules, state: Any, seat: int) -> list[dict[str, Any]]:
    """The seat's legal actions in `state`, with their previews (see `turn_options`)."""
    options = []
    for action in rules.legal_actions(state, seat):
        text = rules.format(action)
        told = rules.narrate(state, action, rules.perform(state, action), seat)
        preview = told.removeprefix(text).removeprefix("; ") or _("nothing else happens")
        options.append({"text": text, "action": rules.to_json(action), "preview": preview})
    return options


def pending_undo(ctx: Context, game_id: str, seat: int | None) -> dict[str, Any] | None:
    """The undo request waiting for `seat`'s answer: who asked, back to which seq,
    and the asker's move it takes back in the game's words (`move`, None when it
    cannot be told) with how many moves after it (`later`). None when there is
    none, or it has waited too long (it lapses)."""
    if seat is None:
        return None
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        if row.undo_request_seq is None or row.status != "playing":
            return None
        since = log.events(conn, game_id, after=row.undo_request_seq - 1, but=TALK)
        if parse_timestamp(since[0].created_at) + UNDO_WAIT <= ctx.clock():
            return None
        request = since[0].payload
        answered = any(isinstance(e.event, UndoAnswered) and e.event.seat == seat for e in since)
        if request["seat"] == seat or answered:
            return None
        asked = since[0].event
        assert isinstance(asked, UndoRequested)
        words = taken_back(conn, get(row.game), game_id, asked, since[0].seq)
    move, later = words if words else (None, 0)
    asked_by, back_to = request["seat"], request["back_to"]
    return {"asked_by": asked_by, "back_to": back_to, "move": move, "later": later}


def history_of(
    ctx: Context, game_id: str, seat: int | None = None, *, after: int = 0, talk: bool = True
) -> list[Happened]:
    """Every event of the game after seq `after` that `seat` may be told of, as a
    sentence, in order; without `talk`, no line of the chats (which a page shows in
    its chat panels, a page at a time), so that its cost does not grow with them."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        if after >= row.head_seq:
            return []  # nothing new (a poll from the head, or from a seq not yet written)
        return happened(conn, get(row.game), game_id, after, row.head_seq, seat, talk=talk)


def happened(
    conn: Connection,
    rules: Rules,
    game_id: str,
    after: int,
    upto: int,
    viewer: int | None = None,
    seats: list[Record] | None = None,
    *,
    talk: bool = True,
) -> list[Happened]:
    """The events after < seq <= upto that `viewer` (a seat, or None for anyone)
    may be told of, each as a sentence. The service's one walk of events with the
    states around each: the store's undo-aware fold (`states.Folder`), restarted at
    an undo that reaches back before where the walk began. Seats are told by the
    names of their players at the time, `viewer`'s own as "you" (`seats`: the
    game's seats as read with its head `upto`, else read now). The events no one is
    told of here (the spectators' chat; every line of talk without `talk`) are not
    even read."""
    out = []
    seats = rows.seats(conn, game_id) if seats is None else seats
    who = history.Who.of(seats, viewer)
    veils = veiled.veils(conn, rules, game_id, (s.seat for s in seats))
    unread = TALK if not talk else tuple(kind.TYPE for kind in history.OFF_THE_LOG)
    for step in states.steps(conn, rules, game_id, after=after, upto=upto, but=unread):
        event, before, after_state = step.envelope, step.before, step.after
        told, who = who, who.after(event)
        if not history.visible(event, viewer):
            continue
        known = None
        if isinstance(event.event, UndoRequested) and veils.names(event.event):
            words = taken_back(conn, rules, game_id, event.event, event.seq)
            known = {"move": words[0], "later": words[1]} if words else None
        if veils.hides(event):
            text = veiled.without_words(event, told)
        else:
            text = history.describe(rules, event, before, after_state, told, known)
        closes = step.move is not None and (
            rules.round(after_state) > rules.round(before) or rules.over(after_state)
        )  # (no seat to move is not the end: several seats may move at once)
        seat = history.seat_of(event)
        out.append(Happened(event.seq, event.event, seat, text, rules.round(before), closes))
    return out


def seat_links(ctx: Context, game_id: str) -> list[SeatLink]:
    """Every seat with its current token (derived again from the secret key)."""
    with ctx.reading() as conn:
        ctx.row(conn, game_id)
        seats = rows.seats(conn, game_id)
    return links_of(ctx, game_id, seats)


def links_of(ctx: Context, game_id: str, seats: list[Record]) -> list[SeatLink]:
    """The seats with their current tokens (see `seat_links`)."""
    return [
        SeatLink(
            s.seat,
            s.name,
            None if is_bot(s) else seat_token(ctx.key, game_id, s.seat, s.token_nonce),
            s.email,
            s.language,
        )
        for s in seats
    ]


def seat_settings(ctx: Context, game_id: str, seat: int) -> dict[str, Any]:
    """A seat's mail preference and language, and vacation: days left, and until when."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        found = rows.seats(conn, game_id)[seat - 1]
    return {
        "mail": found.mail,
        "language": found.language,
        "vacation_left": max(
            min(row.options["vacation_days"], game_options.MAX_VACATION_DAYS)
            - found.vacation_days_used,
            0,
        ),
        "vacation_until": found.vacation_until,
        "deadline": row.deadline_at if found.waiting else None,
    }


def options(ctx: Context, game_id: str) -> dict[str, Any]:
    with ctx.reading() as conn:
        return dict(ctx.row(conn, game_id).options)


def games(ctx: Context) -> list[Record]:
    """Every game's row (id, game, status, turn, round, head_seq, ...)."""
    with ctx.reading() as conn:
        return rows.games(conn)


def game_of(ctx: Context, game_id: str) -> str:
    """The name of the game a table plays (its plugin's), from its row alone."""
    with ctx.reading() as conn:
        kind: str = ctx.row(conn, game_id).game
    return kind


def game_name(ctx: Context, game_id: str) -> str | None:
    """The name the game's creator gave it; None: it is called by its players."""
    with ctx.reading() as conn:
        name: str | None = ctx.row(conn, game_id).name
    return name


def setup_chosen(ctx: Context, game_id: str) -> bool:
    """Whether the game's setup was given by someone rather than drawn by the
    server (so they may know its hidden information)."""
    with ctx.reading() as conn:
        ctx.row(conn, game_id)
        created = log.created_payload(conn, game_id)
    return bool(created.get("setup_chosen", False))
