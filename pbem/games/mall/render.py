"""Text drawings for terminals and mails: a mall floor by floor, the Dispenser, and a
whole position as one player or a spectator may see it. The words are in the
reader's language; ids, notation and the drawn grid stay as they are."""

from __future__ import annotations

from itertools import compress
from operator import is_not

from pbem import i18n
from pbem.i18n import gettext as _
from pbem.i18n import ngettext

from ..names import said_name
from .actions import Action, Build, BuildAttraction, Dock, Money
from .content import Content
from .document import secret_visible
from .explain import attraction_name, place_words, said, title
from .mall import ATTRACTION, MAIN, Mall
from .pieces import Tile
from .scoring import score
from .state import State

WIDTH = 5


def _label(mall: Mall, cell: tuple[int, int]) -> str:
    tile = mall.owner.get(cell)
    if tile is None:
        return "."
    if tile.kind == ATTRACTION:
        initials = "".join(word[0] for word in tile.id.split("-"))
        return initials + ("^" if cell in tile.platforms else "")
    if tile.kind == MAIN:
        return tile.id
    here = [c for c in mall.customers if c.on == tile.id]
    if tile.is_element and tile.kind != "entrance":
        return tile.id + ("*" if here else "")
    waiting = sum(1 for c in here if not c.satisfied)
    return tile.id + (f"+{waiting}" if waiting and tile.kind != "dock" else "")


def draw_mall(mall: Mall) -> str:
    """The mall as rows of cells, top floor first, floor numbers on the left and
    column numbers below. `^` marks a platform, `*` a satisfied customer on a store,
    `+n` customers waiting on an entrance."""
    xs = [x for x, _ in mall.owner]
    left, right = min(xs), max(xs)
    lines = []
    for y in range(mall.height, 0, -1):
        cells = "".join(_label(mall, (x, y)).center(WIDTH) for x in range(left, right + 1))
        lines.append(f"{y:>3} |{cells.rstrip()}")
    lines.append("    +" + "-" * WIDTH * (right - left + 1))
    lines.append("     " + "".join(str(x).center(WIDTH) for x in range(left, right + 1)))
    return "\n".join(lines)


def draw_dispenser(state: State) -> str:
    content = state.content
    lines = []
    for row in range(content.rows, 0, -1):
        cells = []
        for i, name in enumerate(content.columns):
            tile = state.dispenser[i][row - 1] or "--"
            cells.append(f"{name}{row} {tile:<4}")
        lines.append("  ".join(cells) + "  " + _("costs %(cost)s", cost=content.cost(row)))
    return "\n".join(lines)


def describe(state: State, viewer: int | None = None) -> str:
    """A whole position as text; hidden information stays hidden from `viewer`."""
    standings = score(state)
    names = {p.seat: said_name(p.name) for p in state.players}
    bank, supply = state.bank, len(state.supply)
    if state.turn is None or state.finished:
        head = _("Game finished; bank %(bank)s, supply %(supply)s", bank=bank, supply=supply)
    elif state.end_triggered:
        head = _(
            "Game round %(round)s, %(name)s to move; bank %(bank)s, supply %(supply)s;"
            " the end is triggered",
            round=state.round,
            name=names[state.turn],
            bank=bank,
            supply=supply,
        )
    else:
        head = _(
            "Game round %(round)s, %(name)s to move; bank %(bank)s, supply %(supply)s",
            round=state.round,
            name=names[state.turn],
            bank=bank,
            supply=supply,
        )
    commons = ", ".join(
        _("%(name)s (built by %(by)s)", name=attraction_name(c), by=names[state.built_by[c]])
        if c in state.built_by
        else attraction_name(c)
        for c in state.commons
    )
    lines = [
        head,
        "",
        draw_dispenser(state),
        "",
        _("Commons: %(commons)s", commons=commons or _("none")),
    ]
    for player, points in zip(state.players, standings.scores, strict=True):
        mall = player.mall
        secret = player.secret if secret_visible(state, player, viewer) else _("hidden")
        balloons = ", ".join(f"{said(k)} {v}" for k, v in points.balloons.items())
        lines += [
            "",
            _(
                "%(name)s (seat %(seat)s): %(money)s notes, secret %(secret)s, score %(total)s"
                " (%(balloons)s, attractions %(attractions)s, bays %(bays)s)",
                name=names[player.seat],
                seat=player.seat,
                money=player.money,
                secret=secret,
                total=points.total,
                balloons=balloons,
                attractions=points.attractions,
                bays=points.docks,
            ),
            draw_mall(mall),
        ]
        waiting = ", ".join(_customer(c.id, c.want, c.on) for c in mall.waiting)
        satisfied = ", ".join(_customer(c.id, c.want, c.on) for c in mall.satisfied)
        lines.append("  " + _("waiting: %(customers)s", customers=waiting or _("none")))
        lines.append("  " + _("satisfied: %(customers)s", customers=satisfied or _("none")))
    if state.finished:
        winners = _(" and ").join(names[s] for s in standings.winners)
        lines += ["", _("Winner: %(names)s", names=winners)]
    return "\n".join(lines)


def _customer(customer_id: str, want: str, on: str) -> str:
    """A customer in the position's text: "M1.2 hobby on M1"."""
    return _("%(id)s %(want)s on %(on)s", id=customer_id, want=said(want), on=on)


def tile_words(tile_id: str, content: Content) -> str:
    """A tile as the log names it: "Burger Bar (Y01)", "Entrance (R13)", "the Shuttle
    Stop (GD1)", "Robot Arena", "the Main Entrance". An element's id stays beside its
    name in brackets, so a reader can find it.

    Said once per catalog and tile: the key is the catalog of the language of the
    moment, so the words are never another language's, nor a replaced catalog's."""
    key = (i18n.translations(i18n.language()), tile_id)
    words = content.said.get(key)
    if words is None:
        words = content.said[key] = _tile_words(tile_id, content)
    return words


def _tile_words(tile_id: str, content: Content) -> str:
    if tile_id in content.attractions:
        return attraction_name(tile_id)
    spec = content.elements.get(tile_id)
    if spec is not None:
        return f"{_(spec.name) if spec.name else title(spec.category)} ({tile_id})"
    return place_words(tile_id, content)


def _notes(n: int) -> str:
    return ngettext("%(num)d note", "%(num)d notes", n)


def _what(before: State, action: Action, placed: tuple[Tile, ...]) -> str:
    """The first part of a narration: what was played, by its name, and where."""
    content = before.content
    if isinstance(action, Money):
        taken = before.dispenser[content.columns.index(action.column)][0] or ""
        tile, column = tile_words(taken, content), action.column
        return _("%(tile)s from %(column)s1 as money", tile=tile, column=column)
    if isinstance(action, Build):
        words = [tile_words(t.id, content) for t in placed]
        names = words[0] if len(words) == 1 else _(" and ").join(words)  # one, almost always
        x, y, slot = action.x, action.y, action.slot
        return _("%(tiles)s from %(slot)s at %(x)s,%(y)s", tiles=names, slot=slot, x=x, y=y)
    if isinstance(action, BuildAttraction):
        name, x, y = attraction_name(action.id), action.x, action.y
        if action.mirror:
            return _("%(name)s at %(x)s,%(y)s, mirrored", name=name, x=x, y=y)
        return _("%(name)s at %(x)s,%(y)s", name=name, x=x, y=y)
    if isinstance(action, Dock):
        place = place_words(action.id, content)
        return _("%(place)s at column %(x)s", place=place, x=action.x)
    return _("a pass")


def _arrivals(wants: tuple[str, ...], content: Content) -> str:
    """ "a customer arrives, wanting food", "2 customers arrive, both wanting hobby",
    "3 customers arrive, wanting food, hobby and fashion". Said once per catalog and
    wants, as tile_words: the previews of a turn say it of every place of a tile."""
    key = (i18n.translations(i18n.language()), wants)
    words = content.said.get(key)
    if words is None:
        words = content.said[key] = _arrivals_words([said(w) for w in wants])
    return words


def _arrivals_words(wants: list[str]) -> str:
    if len(wants) == 1:
        return _("a customer arrives, wanting %(want)s", want=wants[0])
    if len(set(wants)) == 1:
        if len(wants) == 2:
            return _("2 customers arrive, both wanting %(want)s", want=wants[0])
        return _(
            "%(count)s customers arrive, all wanting %(want)s", count=len(wants), want=wants[0]
        )
    return _(
        "%(count)s customers arrive, wanting %(some)s and %(last)s",
        count=len(wants),
        some=", ".join(wants[:-1]),
        last=wants[-1],
    )


def narrate(before: State, action: Action, after: State) -> str:
    """What an action did, in words that follow a player's name and "played" (so
    they read the same after "Ann" and after "you"): the tile, attraction or bay by
    its name and where it went, the notes paid or gained, each customer who moved
    from where to where, customers who arrived, the end triggered."""
    seat = before.seat_to_move
    old, new = before.player(seat), after.player(seat)
    content = before.content
    placed = new.mall.tiles[len(old.mall.tiles) :]
    first = _what(before, action, placed)
    change = new.money - old.money
    if change > 0:
        first = _("%(what)s, gaining %(notes)s", what=first, notes=_notes(change))
    elif change < 0:
        first = _("%(what)s, paying %(notes)s", what=first, notes=_notes(-change))
    parts = [first]
    # A mall keeps its customers in order, newcomers last, and one who did not move
    # is the same object in the new mall (Mall.add): side by side, only the pairs that
    # differ (found in C) are looked at, with no lookup by id in either mall.
    was_all, now_all = old.mall.customers, new.mall.customers
    pairs = compress(zip(was_all, now_all, strict=False), map(is_not, was_all, now_all))
    moved = [(was, now) for was, now in pairs if now.satisfied and not was.satisfied]
    for was, now in sorted(moved, key=lambda pair: pair[1].id):
        parts.append(
            _(
                "a customer wanting %(want)s moves from %(was)s to %(now)s",
                want=said(now.want),
                was=tile_words(was.on, content),
                now=tile_words(now.on, content),
            )
        )
    arrived = now_all[len(was_all) :]
    if arrived:
        parts.append(_arrivals(tuple(c.want for c in arrived), content))
    if after.end_triggered and not before.end_triggered:
        parts.append(_("the end of the game is triggered"))
    return "; ".join(parts)
