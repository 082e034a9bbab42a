"""The log file (docs/design.md contract) and the log's health: export a game as a log
file, import one as a new game, verify a stored game (its hash chain, every event
folding again, and every read model and snapshot agreeing with the events), and
rebuild the read models from the events alone."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, delete, select

from pbem.events import MOVE_TYPES, Envelope, EventError, SeatResigned, moves_in_force
from pbem.games import IllegalAction, Rules, SetupError, for_log_format, get, plugin, resignations
from pbem.games.resignations import Resignation
from pbem.store import log, projection, states
from pbem.store.projection import Before
from pbem.store.talk import forget_readers, readers

from . import chat, resign, rows
from . import options as game_options
from .create import PlayerSpec, checked_players, start
from .errors import BadRequest, Created, NotFound
from .moves import move
from .sealed import hidden_from, sealed_moves
from .seeds import guessable
from .unit import BOT, Context, is_game_id, sha256

SNAPSHOTS = projection.SNAPSHOTS
GAMES, SEATS = rows.GAMES, rows.SEATS


def export_log(ctx: Context, game_id: str, seat: int | None = None) -> dict[str, Any]:
    """The game as a log file, redacted for `seat` while the game runs; once it has
    ended it carries the seed, so anyone can check its SHA-256 and replay it."""
    with ctx.reading() as conn:
        row = ctx.row(conn, game_id)
        rules = get(row.game)
        events = log.events(conn, game_id)
        state = ctx.state(conn, rules, row)
        sealed = sealed_moves(conn, rules, game_id, events)
    created = events[0].payload
    setup = {"players": [p["name"] for p in created["players"]], **created["setup"]}
    in_force = moves_in_force(events)
    actions = [_entry(rules, m, hidden_from(sealed, m.seq, seat)) for m in in_force]
    return {
        "format": rules.log_format,
        "setup": rules.public_setup(setup, state, seat),
        "actions": actions,
        "chat": chat.exported(ctx, game_id, seat, events, [m.seq for m in in_force]),
        **_resignations(events, [m.seq for m in in_force]),
        "game": {
            "id": game_id,
            "status": row.status,
            "head_seq": row.head_seq,
            "head_hash": row.head_hash,
            # the setup was given by someone (not drawn by the server), so its
            # creator may know the hidden information
            "setup_chosen": bool(created.get("setup_chosen", False)),
        },
    }


def _json_of(rules: Rules, given: Any) -> Any:
    """A log entry's action in the game's canonical JSON, or None when it is none."""
    try:
        return rules.to_json(rules.parse(given))
    except (IllegalAction, TypeError):
        return None


def _entry(rules: Rules, move: Envelope, sealed: bool) -> dict[str, Any]:
    """A move as the log file lists it: its seat (null: the game's own) and action;
    a move still sealed from the reader says that it was made, not what."""
    if sealed:
        return {"seat": move.payload.get("seat"), "sealed": True}
    action = rules.format(rules.parse(move.payload["action"]))
    return {"seat": move.payload.get("seat"), "action": action}


def _resignations(events: list[Envelope], moves: list[int]) -> dict[str, Any]:
    """The "resigned" key of the log file, only for a game where a seat resigned
    (public: everyone at the table is told): each resignation's seat, `after`, how
    many of the file's actions came before it, and the bot that played the seat on,
    null when it ended the game."""
    resigned = [
        {
            "seat": e.payload["seat"],
            "after": sum(1 for seq in moves if seq < e.seq),
            "bot": e.payload["replaced_by"].removeprefix(BOT) or None,
        }
        for e in events
        if e.type == SeatResigned.TYPE
    ]
    return {"resigned": resigned} if resigned else {}


def import_log(ctx: Context, doc: Mapping[str, Any], actor: str = "import") -> Created:
    """A new game from a log file: every action and resignation is checked before
    anything is stored; an illegal one refuses the whole file, naming it. Each
    resignation is stored where the file puts it, as the live one is."""
    if not isinstance(doc, Mapping):
        raise BadRequest("a game log is a JSON object")
    try:
        rules = for_log_format(doc.get("format"))
    except KeyError as error:
        raise BadRequest(str(error.args[0])) from None
    setup = dict(doc.get("setup") or {})
    names = setup.pop("players", None)
    claimed = setup.pop("seed_sha256", None)
    if not isinstance(names, list) or not names:
        raise BadRequest('the log needs "setup.players", a list of names')
    if claimed is not None and "seed" in setup and claimed != sha256(str(setup["seed"])):
        raise BadRequest("the seed does not match its SHA-256 in the log")
    listed = [PlayerSpec(n["name"] if isinstance(n, dict) else str(n)) for n in names]
    specs = checked_players(listed, rules.name)
    try:
        initial = rules.setup([p.name for p in specs], setup)
    except SetupError as error:
        raise BadRequest(f"setup: {error}") from None
    entries = doc.get("actions") or []
    if not isinstance(entries, list):
        raise BadRequest('the log\'s "actions" is a list of {"seat", "action"} entries')
    bots = plugin(rules.name).bots
    try:
        resigned = resignations.read(doc.get("resigned"), len(specs), len(entries), bots)
        state = _resigned_at(rules, initial, resigned, 0, len(specs))
    except resignations.ResignationError as error:
        raise BadRequest(str(error)) from None
    moves: list[tuple[int, Any, Any]] = []
    for number, entry in enumerate(entries, start=1):
        # the parts of an entry are JSON as given: the rules refuse what is no action
        given: Any = entry.get("action") if isinstance(entry, Mapping) else None
        seat: Any = entry.get("seat") if isinstance(entry, Mapping) else None
        if isinstance(entry, Mapping) and entry.get("sealed"):
            raise BadRequest(f"action {number} (seat {seat}) is sealed: the log does not say it")
        due = rules.resolution(state)
        if seat is None and due is not None:  # the game's own, where the game takes it
            if rules.to_json(due) != _json_of(rules, given):
                raise BadRequest(f'action {number} ("{given}") is not what the game resolves')
            moves.append((0, due, state))
            state = rules.perform(state, due)
            continue
        if due is not None:
            raise BadRequest(f"action {number}: the game's own resolution comes first (seat null)")
        try:
            checked = rules.check(state, rules.parse(given), seat)
        except (IllegalAction, TypeError) as error:
            raise BadRequest(f'action {number} (seat {seat}, "{given}"): {error}') from None
        if isinstance(seat, bool) or not isinstance(seat, int):  # True == 1, 1.0 == 1
            raise BadRequest(
                f'action {number} ("{given}"): name the seat that played it,'
                ' as a number ("seat": 1)'
            )
        moves.append((seat, checked, state))
        try:
            state = _resigned_at(rules, rules.perform(state, checked), resigned, number, len(specs))
        except resignations.ResignationError as error:
            raise BadRequest(str(error)) from None
    if rules.resolution(state) is not None:
        raise BadRequest("the log ends before the game's own resolution (seat null)")
    most = (ctx.settings.talk_lines_per_game, ctx.settings.talk_lines_per_writer)
    talk = chat.imported(doc.get("chat"), len(specs), len(moves), most)
    private = any(line.to is not None for lines in talk.values() for line in lines)
    chosen = game_options.checked({"press": "private"} if private else None)
    # a deal given in the log, or a seed too short or too regular to hide it
    # (fewer than 128 random bits), may be known to whoever wrote the log; that
    # matters only in a game that hides something
    given = guessable(setup.get("seed")) or any(k != "seed" for k in setup)
    setup_chosen = given and bool(rules.secrets(initial, None))
    with ctx.transaction() as tx:
        links = start(ctx, tx, rules, specs, chosen, setup, initial, actor, setup_chosen)
        state = initial
        for number in range(len(moves) + 1):
            if number and moves[number - 1][0]:  # the game's own (0) came with a move
                seat, checked, before = moves[number - 1]
                _, state = move(ctx, tx, rules, [], seat, checked, before, actor=actor)
            for gone in resignations.at(resigned, number):  # as the seat's own resignation
                _, state = resign.record(ctx, tx, rules, gone.seat, state, gone.bot, actor)
            chat.record(ctx, tx, rules, talk.get(number, []), state, actor)
        held = sorted(r.seat for r in resigned if r.bot and r.seat in rules.active(state))
        if held:
            tx.bot_turn = (held[0], tx.head[0])  # the bot that holds the seat plays on
    return Created(tx.game_id, tx.head[0], links)


def _resigned_at(
    rules: Rules, state: Any, resigned: list[Resignation], after: int, seats: int
) -> Any:
    """The state once the resignations that came after the first `after` actions
    took effect; ResignationError when the game refuses one there."""
    for gone in resignations.at(resigned, after):
        state = resignations.apply(rules, state, gone, seats, resigned[: gone.number - 1])
    return state


def verify(ctx: Context, game_id: str) -> list[str]:
    """Everything wrong with the stored game, one line each: a broken hash chain,
    an event that does not fold (an illegal or non-canonical move), and every
    read model that disagrees with the events — the games row, each seat's row,
    the readers of private lines, each snapshot. Empty when the game is sound.
    The read models are recomputed by projecting the events again inside a
    savepoint that is rolled back, and compared with the stored ones read in the
    same transaction."""
    with ctx.db.writing() as conn:
        try:
            ctx.row(conn, game_id)
        except NotFound:  # no games row: a game only if its events say so
            if not is_game_id(game_id) or log.created(conn, game_id) is None:
                raise
        problems = log.chain_problems(conn, game_id)
        try:
            events = log.events(conn, game_id)
        except ValueError as error:
            return [*problems, f"an event cannot be read: {error}"]
        rules = get(events[0].payload["game"])
        stored_game = _game_row(conn, game_id)
        stored_seats = _seat_rows(conn, game_id)
        stored_readers = readers(conn, game_id)
        snapshots = _snapshots(conn, game_id, rules.version)
        savepoint = conn.begin_nested()
        try:
            folded = _refold(ctx, conn, rules, events, snapshots, problems)
            if folded:
                problems += _differences("games row", stored_game, _game_row(conn, game_id))
                problems += _seat_differences(stored_seats, _seat_rows(conn, game_id))
                if stored_readers != readers(conn, game_id):
                    problems.append("talk readers: not the private lines the events give")
        finally:
            savepoint.rollback()
    return problems


def _refold(
    ctx: Context,
    conn: Connection,
    rules: Rules,
    events: list[Envelope],
    snapshots: dict[int, Any],
    problems: list[str],
) -> bool:
    """Fold the events again through the rules (each move checked as if new) and
    project them into emptied read models; a stored snapshot that differs from
    the state at its seq is a problem. False when an event does not fold."""
    game_id = events[0].game_id
    for table, column in ((SNAPSHOTS, SNAPSHOTS.c.game_id), (SEATS, SEATS.c.game_id)):
        conn.execute(delete(table).where(column == game_id))
    conn.execute(delete(GAMES).where(GAMES.c.id == game_id))
    forget_readers(conn, game_id)
    folder = states.Folder(rules, 1, states.initial_state(rules, events[0].payload))
    before = Before(events[0].payload["options"])
    for event in events:
        try:
            typed = event.event
        except EventError as error:
            problems.append(f"seq {event.seq}: {error}")
            return False
        if isinstance(typed, MOVE_TYPES):
            seat, given = typed.seat, typed.action
            try:
                checked = rules.check(folder.state, rules.parse(given), seat)
            except IllegalAction as error:
                problems.append(f"seq {event.seq}: seat {seat}'s move does not fold: {error}")
                return False
            if rules.to_json(checked) != given:
                problems.append(f"seq {event.seq}: the move is not in canonical form")
        state = folder.push(event) if event.seq > 1 else folder.state
        if event.seq in snapshots and snapshots[event.seq] != _json(rules.dump_state(state)):
            problems.append(
                f"snapshot at seq {event.seq}: its state is not the one the events give"
            )
        every = ctx.settings.snapshot_every
        head = projection.project(conn, rules, event, state, before=before, every=every)
        before = projection.next_before(before, event, head)
    return True


def _json(value: Any) -> Any:
    """A JSON document as it reads back from a JSON column."""
    return json.loads(json.dumps(value))


def _game_row(conn: Connection, game_id: str) -> dict[str, Any] | None:
    found = conn.execute(select(GAMES).where(GAMES.c.id == game_id)).first()
    return None if found is None else dict(found._mapping)


def _seat_rows(conn: Connection, game_id: str) -> dict[int, dict[str, Any]]:
    found = conn.execute(select(SEATS).where(SEATS.c.game_id == game_id)).all()
    return {r.seat: dict(r._mapping) for r in found}


def _snapshots(conn: Connection, game_id: str, version: str) -> dict[int, Any]:
    """The game's snapshots of this engine version (others are never read), by seq."""
    found = conn.execute(
        select(SNAPSHOTS.c.seq, SNAPSHOTS.c.state).where(
            SNAPSHOTS.c.game_id == game_id, SNAPSHOTS.c.engine_version == version
        )
    ).all()
    return {r.seq: r.state for r in found}


def _differences(
    what: str, stored: dict[str, Any] | None, derived: dict[str, Any] | None
) -> list[str]:
    """One line per column where a stored row is not what the events give."""
    if stored is None or derived is None:
        if stored is derived:
            return []
        return [f"{what}: missing" if stored is None else f"{what}: the events give no such row"]
    out = []
    for column, value in derived.items():
        found = stored.get(column)
        if found == value:
            continue
        if isinstance(value, dict | list) or isinstance(found, dict | list):
            out.append(f"{what}: {column} is not what the events give")
        else:
            out.append(f"{what}: {column} is {found!r}, the events give {value!r}")
    return out


def _seat_differences(
    stored: dict[int, dict[str, Any]], derived: dict[int, dict[str, Any]]
) -> list[str]:
    out = []
    for seat in sorted(stored.keys() | derived.keys()):
        out += _differences(f"seat {seat}", stored.get(seat), derived.get(seat))
    return out


def rebuild(ctx: Context) -> int:
    """Recreate every read model and snapshot from the events alone."""
    with ctx.db.writing() as conn:
        count = projection.rebuild(conn, ctx.settings.snapshot_every)
    ctx.cache.clear()
    return count
