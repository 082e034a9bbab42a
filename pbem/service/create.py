"""Creating games: checking the players, GameCreated with its read models and the
invitations, and a form's creation key that makes creating idempotent."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError

from pbem import i18n
from pbem.events import (
    CHAIN,
    CHAIN_V1,
    CHAIN_V2,
    GENESIS,
    GameCreated,
    LanguageChosen,
    Player,
    encode,
)
from pbem.games import NAMES, Rules, SetupError, plugin
from pbem.i18n import gettext as _
from pbem.store import log

from . import invitations, naming, policy, queries
from . import options as game_options
from .addresses import checked_address
from .errors import BadRequest, Created, SeatLink
from .tokens import new_nonce, seat_token, token_hash
from .unit import BOT, Context, Tx, new_game_id, sha256


@dataclass(frozen=True)
class PlayerSpec:
    """A seat of a new game: a person (name, email) or a bot (name, bot)."""

    name: str
    email: str | None = None
    bot: str | None = None
    language: str | None = None  # of the person's mails; None: English
    # True: the person's mails follow their browser's language from their first
    # visit (until then, `language`'s)
    language_open: bool = False


def create_game(
    ctx: Context,
    players: Sequence[PlayerSpec],
    options: Mapping[str, Any] | None = None,
    setup: Mapping[str, Any] | None = None,
    *,
    game: str | None = None,
    actor: str = "admin",
    key: str | None = None,
    chain: int = CHAIN,
    name: str | None = None,
    creator_seat: int | None = None,
) -> Created:
    """A new game of `game` (default: the first game the server knows); see
    `Service.create_game`."""
    if key is not None:
        if not isinstance(key, str) or not 16 <= len(key) <= 200 or not key.isprintable():
            raise BadRequest(_("a creation key is 16 to 200 printable characters"))
        earlier = created_by_key(ctx, key)
        if earlier is not None:
            return earlier
    kind = NAMES[0] if game is None else game
    if not isinstance(kind, str) or kind not in NAMES:
        known = ", ".join(NAMES)
        raise BadRequest(
            _(
                "unknown game %(game)s: this server runs %(known)s",
                game=repr(str(kind)[:40]),
                known=known,
            )
        )
    rules = plugin(kind).rules
    seats_refused(kind, len(players) if isinstance(players, Sequence) else 0)
    chosen = game_options.checked(options)
    if setup is not None and not isinstance(setup, Mapping):
        raise BadRequest(_("setup is an object"))
    given = bool(setup)
    setup = dict(setup or {})
    setup.setdefault("seed", secrets.token_hex(24))  # 192 random bits
    specs = checked_players(players, rules.name)
    # -- the game's name and the creator's own seat --
    called = naming.checked(name)
    if creator_seat is not None:
        people = [seat for seat, p in enumerate(specs, start=1) if not p.bot]
        if not isinstance(creator_seat, int) or creator_seat not in people:
            raise BadRequest(_("the creator's seat is a seat a person plays"))
    # -- end of name and creator's seat --
    try:
        state = rules.setup([p.name for p in specs], setup)
    except SetupError as error:
        raise BadRequest(_("setup: %(error)s", error=error)) from None
    # A given setup is marked only in a game that hides something (for nim, a pile
    # of any size is there for all to see).
    setup_chosen = given and bool(rules.secrets(state, None))
    try:
        with ctx.transaction() as tx:
            tx.chain = checked_chain(chain)
            links = start(
                ctx,
                tx,
                rules,
                specs,
                chosen,
                setup,
                state,
                actor,
                setup_chosen,
                key,
                name=called,
                creator_seat=creator_seat,
            )
    except IntegrityError:
        earlier = created_by_key(ctx, key) if key is not None else None
        if earlier is None:
            raise
        return earlier  # the same form, sent twice at once: the first one made it
    return Created(tx.game_id, tx.head[0], links)


def checked_chain(chain: int) -> int:
    """A chain version a new game may have: the current one, or version 1 (as every
    game made before version 2 has; for tools and tests of the version 1 rule)."""
    if chain not in (CHAIN_V1, CHAIN_V2):
        raise ValueError(f"there is no hash chain version {chain!r}")
    return chain


def created_by_key(ctx: Context, key: str) -> Created | None:
    """The game a creation `key` made, with its seats, or None."""
    game_id = game_id_for(ctx, key)
    with ctx.reading() as conn:
        event = log.created(conn, game_id)
    if event is None or event.idempotency_key != creation_key(key):
        return None
    return Created(game_id, 1, queries.seat_links(ctx, game_id), replayed=True)


def game_id_for(ctx: Context, key: str) -> str:
    """The id a creation key's game gets: derived from the key with the secret
    key, so two web processes given the same form make one game (the id is the
    primary key) and nobody can choose or foresee an id."""
    digest = hmac.new(ctx.key, b"game:" + key.encode("utf-8"), hashlib.sha256).digest()
    return base64.b32encode(digest[:10]).decode("ascii").lower()


def creation_key(key: str) -> str:
    return f"create:{sha256(key)}"


def start(
    ctx: Context,
    tx: Tx,
    rules: Rules,
    specs: list[PlayerSpec],
    chosen: dict[str, Any],
    setup: dict[str, Any],
    state: Any,
    actor: str,
    setup_chosen: bool = False,
    key: str | None = None,
    *,
    name: str | None = None,
    creator_seat: int | None = None,
) -> list[SeatLink]:
    """GameCreated, its read models, and the invitations (within the limit per
    address): none to the creator's own seat, who is taken to it straight away."""
    tx.game_id = new_game_id() if key is None else game_id_for(ctx, key)
    invited = [
        p.email
        for seat, p in enumerate(specs, start=1)
        if p.email and not p.bot
        if seat != creator_seat
    ]
    invitations.check(tx.conn, invited, ctx.clock())
    links, seats = [], []
    for seat, spec in enumerate(specs, start=1):
        nonce = new_nonce()
        token = seat_token(ctx.key, tx.game_id, seat, nonce)
        controller = f"{BOT}{spec.bot}" if spec.bot else "human"
        seats.append(Player(seat, spec.name, token_hash(token), nonce, spec.email, controller))
        language = spec.language or i18n.DEFAULT
        links.append(SeatLink(seat, spec.name, None if spec.bot else token, spec.email, language))
    created = GameCreated(
        game_id=tx.game_id,
        game=rules.name,
        content=rules.content,
        engine_version=rules.version,
        players=tuple(seats),
        options=dict(chosen),
        setup=dict(setup),
        seed_sha256=sha256(str(setup["seed"])) if "seed" in setup else None,
        setup_chosen=setup_chosen,
        name=name,
        languages_open=tuple(
            seat for seat, s in enumerate(specs, start=1) if s.language_open and not s.bot
        ),
    )
    type, _, payload = encode(created)
    stored = None if key is None else creation_key(key)
    now = tx.time()
    at = (0, GENESIS)
    event = log.append(tx.conn, tx.game_id, at, type, payload, actor, now, stored, chain=tx.chain)
    ctx.project(tx, rules, event, state)
    for link, spec in zip(links, specs, strict=True):
        if spec.language not in (None, i18n.DEFAULT) and not spec.bot:
            chosen_language = LanguageChosen(link.seat, str(spec.language))
            ctx.record(tx, rules, chosen_language, actor, state)
    waiting = sorted(rules.active(state))
    bots = [seat for seat in waiting if specs[seat - 1].bot]
    if bots:
        tx.bot_turn = (bots[0], tx.head[0])
    people = [seat for seat in waiting if seat not in bots]
    policy.game_started(tx, links, people, seated=creator_seat)
    return links


def seats_refused(game: str, count: int) -> None:
    """Nothing when a game of `game` takes `count` players (its plugin's `seats`);
    else BadRequest saying how many it takes."""
    least, most = plugin(game).seats
    if least <= count <= most:
        return
    if least == most:
        raise BadRequest(
            _("setup: the game takes %(most)s players, not %(count)s", most=most, count=count)
        )
    raise BadRequest(
        _(
            "setup: the game takes %(least)s to %(most)s players, not %(count)s",
            least=least,
            most=most,
            count=count,
        )
    )


def checked_players(players: Sequence[PlayerSpec], game: str) -> list[PlayerSpec]:
    """The players of a new game of `game`, each checked (`checked_player`), and no
    name that looks like another seat's (`visible.unlike`): nobody passes for
    another player. Two bots may share a name: nobody talks or is mailed as a bot,
    and the form names two of a kind alike."""
    from . import visible  # ICU: loaded at the first text to check

    specs = [checked_player(p, game) for p in players]
    for seat, spec in enumerate(specs, start=1):
        earlier = enumerate(specs[: seat - 1], start=1)
        visible.unlike(spec.name, {n: s.name for n, s in earlier if not (s.bot and spec.bot)})
    return specs


def checked_player(spec: PlayerSpec, game: str) -> PlayerSpec:
    """A player of `game` as stored: a name fit to show anywhere, a checked
    address for a person, a bot the game has."""
    from . import visible  # ICU: loaded at the first text to check

    for field_name in ("name", "email", "bot", "language"):
        value = getattr(spec, field_name)
        if value is not None and not isinstance(value, str):
            raise BadRequest(_("a player's %(field)s is text", field=field_name))
    # no newlines, no runs of spaces, nothing invisible, no control or format
    # characters (bidi overrides): a name is shown in pages, mails and terminals
    name = visible.shown_name(spec.name or "")
    if not name or len(name) > 100:
        raise BadRequest(_("every player needs a name of 1 to 100 characters"))
    email = checked_address(spec.email) if spec.email and spec.email.strip() else None
    bots = plugin(game).bots
    if spec.bot is not None and spec.bot not in bots:
        raise BadRequest(
            _("unknown bot %(bot)s: bots are %(bots)s", bot=repr(spec.bot), bots=", ".join(bots))
        )
    if spec.language is not None and spec.language not in i18n.LANGUAGES:
        raise BadRequest(
            _(
                "a player's language is one of %(languages)s, not %(given)s",
                languages=", ".join(i18n.LANGUAGES),
                given=repr(spec.language[:20]),
            )
        )
    open_ = spec.language_open is True
    return PlayerSpec(name, None if spec.bot else email, spec.bot, spec.language, open_)
