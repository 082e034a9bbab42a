"""Why the rules refuse an action, in the player's words: every refusal as one sentence
of the catalog, said in the reader's language when it is raised (pages and mail
answers speak the player's; the JSON API and the CLI speak English)."""

from __future__ import annotations

from typing import Any

from pbem.i18n import N_, ngettext
from pbem.i18n import gettext as _

from .actions import IllegalAction

REFUSALS = {
    "over": N_("the game is over"),
    "not_your_turn": N_("not seat %(seat)s's turn"),
    "pass": N_(
        "you may pass only when no other action is legal (you can, for example, %(example)s)"
    ),
    "not_an_action": N_("not an action: %(action)r"),
    "no_column": N_("there is no column %(column)s: columns are %(columns)s"),
    "column_empty": N_("column %(column)s of the Dispenser is empty"),
    "slot_empty": N_("%(slot)s is empty"),
    "costs": N_("%(slot)s costs %(cost)s notes; you have %(money)s"),
    "taken": N_("(%(x)s,%(y)s) is taken by %(id)s"),
    "underground": N_("(%(x)s,%(y)s) is below floor 1: nothing stands below the ground"),
    "ground": N_("(%(x)s,%(y)s) is on the ground floor: elements go on floor 2 or higher"),
    "floats": N_("(%(x)s,%(y)s) would float: nothing below supports it"),
    "no_platform": N_(
        "(%(x)s,%(y)s) would float: (%(x)s,%(below)s) is part of %(id)s but not a platform cell"
    ),
    "entrance_customer": N_(
        '%(id)s is an entrance: no customer moves onto it, so "for %(customer)s" is not allowed'
    ),
    "say_which": N_("several customers can reach it: say which — for %(choices)s"),
    "no_customer": N_("there is no customer %(id)s in your mall"),
    "satisfied": N_("%(id)s is already satisfied on %(on)s"),
    "wants": N_("%(id)s wants %(want)s, not %(kind)s"),
    "out_of_reach": N_(
        "%(id)s cannot reach (%(x)s,%(y)s): a customer walks at most %(reach)s tiles"
        " (attractions count 0)"
    ),
    "statue_built": N_("you have already built your %(id)s"),
    "not_in_play": N_("%(id)s is not in play in this game"),
    "built_by": N_("%(id)s was already built by seat %(seat)s"),
    "needs": N_("%(id)s needs %(condition)s in your mall"),
    "needs_card": N_("%(id)s needs %(condition)s in your mall (your card %(card)s)"),
    "no_attraction": N_("there is no attraction %(id)r"),
    "cannot_stand": N_("%(id)s cannot stand at %(x)s,%(y)s: %(problem)s"),
    "have_bay": N_("you already have a %(type)s bay (%(id)s)"),
    "no_bay": N_("there is no docking bay %(id)s: bays are %(bays)s"),
    "bay_cannot": N_("%(id)s cannot be built at %(x)s: %(problem)s"),
}


def refusal(which: str, /, **values: Any) -> str:
    """One of REFUSALS in the reader's language, its places filled in (a content word
    among them, a want, kind or bay type, is translated by the caller)."""
    return _(REFUSALS[which], **values)


def refuse(which: str, rule: str, /, **values: Any) -> IllegalAction:
    """The IllegalAction of one of REFUSALS, naming the rules section `rule`."""
    return IllegalAction(refusal(which, **values), rule)


def either(names: tuple[str, ...]) -> str:
    """Customers to choose from: "M1.1, M1.2 or R01.1"."""
    return _("%(some)s or %(last)s", some=", ".join(names[:-1]), last=names[-1])


def both(names: tuple[str, ...]) -> str:
    """Columns: "L and R"."""
    return _("%(some)s and %(last)s", some=", ".join(names[:-1]), last=names[-1])


def too_few(kind: str, need: int, short: str) -> str:
    """A bay type whose requirement the player's mall does not meet yet."""
    return ngettext(
        "a %(type)s bay needs at least %(num)d element of each category; you have %(short)s",
        "a %(type)s bay needs at least %(num)d elements of each category; you have %(short)s",
        need,
        type=_(kind),
        short=short,
    )
