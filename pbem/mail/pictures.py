"""The pictures mails show: the game's own drawings (its mails part's
`turn_picture` of what a turn's reader chooses from, `picture` of the game as it
stands, at the end too) of what everyone may see, made a PNG once per game, moment,
reader's seat and language (its words, the drawing's and its `alt` text, in
theirs)."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from email.message import MIMEPart
from typing import Any

from pbem import i18n
from pbem.games import GAMES
from pbem.i18n import N_
from pbem.i18n import gettext as _
from pbem.service import Service

from .writing import MAIL_POLICY, SMTP_POLICY

PICTURES_KEPT = 64  # the games' latest pictures kept, drawn once each
log = logging.getLogger(__name__)


def _rasteriser() -> Callable[..., bytes] | None:
    """cairosvg's svg2png, or None where the system's cairo library is missing: then
    turn mails go without their picture (the text and HTML say it all) and the
    log says why, once."""
    try:
        import cairosvg  # type: ignore[import-untyped]
    except (ImportError, OSError) as error:
        log.warning("turn mails go without a picture: cairosvg cannot load (%s)", error)
        return None
    svg2png: Callable[..., bytes] = cairosvg.svg2png
    return svg2png


class Pictures:
    def __init__(self, service: Service, mail_domain: str) -> None:
        self.service = service
        self.mail_domain = mail_domain
        self._drawn: dict[tuple[str, int, str, int | None, bool], dict[str, Any] | None] = {}
        self._png_of: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()  # a worker's threads share one composer
        self._drawing = threading.Lock()
        self._svg2png = _rasteriser()

    def warm(self) -> None:
        """Draw a dot: the rasteriser's first drawing loads its libraries' types."""
        if self._svg2png is not None:
            dot = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'
            self._svg2png(bytestring=dot.encode("ascii"))

    def of(
        self,
        game_id: str,
        seq: int,
        spectator: Callable[[], dict[str, Any]] | None = None,
        *,
        seat: int | None = None,
        final: bool = False,
    ) -> dict[str, Any] | None:
        """The game's picture at `seq`: a PNG (`png`), its Content-ID (`cid`), its
        mail part (`part`, and `written` out for SMTP) and words for it (`alt`, in
        the language of the moment); None for a game that draws none. For a turn
        mail to `seat`, what that seat chooses from (the game's `turn_picture`, when
        it draws one); for the game-over mail (`final`), the end. Drawn from what a
        spectator sees, so that no one's hidden parts are ever in it:
        `spectator()`, when the caller has that document at `seq` already (else it
        is read)."""
        key = (game_id, seq, i18n.language(), seat, final)
        if key in self._drawn:
            return self._drawn[key]
        if self._svg2png is None:
            return None
        # two threads may both draw it: the same picture
        doc = spectator() if spectator is not None else self.service.state_at(game_id, seq)
        svg, alt = _drawing(GAMES[doc["game"]].part("mails"), doc, seat, final)
        drawn = None
        if svg is not None:
            drawn = {**self._png(svg), "alt": _(alt)}
        with self._lock:
            while len(self._drawn) >= PICTURES_KEPT:
                self._drawn.pop(next(iter(self._drawn)))
            self._drawn[key] = drawn
        return drawn

    def _png(self, svg: str) -> dict[str, Any]:
        """The drawing as a PNG at twice its size (sharp on phones), its Content-ID
        (named by what it shows) and its mail part, made once for every game that
        looks the same (new games all do): one thread draws it, the others wait."""
        with self._drawing:
            found = self._png_of.get(svg)
            if found is None:
                assert self._svg2png is not None
                png = self._svg2png(bytestring=svg.encode("utf-8"), scale=2)
                cid = f"picture-{hashlib.sha256(png).hexdigest()[:24]}@{self.mail_domain}"
                width = int.from_bytes(png[16:20], "big") // 2  # the PNG's IHDR: CSS pixels
                part = _image_part(png, cid)
                found = {"png": png, "cid": cid, "width": width, "part": part}
                found["written"] = part.as_bytes(policy=SMTP_POLICY)  # as every mail has it
                while len(self._png_of) >= PICTURES_KEPT:
                    self._png_of.pop(next(iter(self._png_of)))
                self._png_of[svg] = found
            return found


def _drawing(
    mails: Any, doc: dict[str, Any], seat: int | None, final: bool
) -> tuple[str | None, str]:
    """The game's drawing for a mail (SVG, or None) and the words for it (to be
    translated): its `turn_picture` of what `seat` chooses from, or its `picture`
    of the game as it stands (at the end: FINAL_PICTURE_ALT's words)."""
    alt = str(getattr(mails, "PICTURE_ALT", N_("The game as it stands")))
    turn = getattr(mails, "turn_picture", None)
    if seat is not None and turn is not None:
        return turn(doc, seat), str(getattr(mails, "TURN_PICTURE_ALT", alt))
    draw = getattr(mails, "picture", None)
    if final:
        alt = str(getattr(mails, "FINAL_PICTURE_ALT", alt))
    return (draw(doc) if draw is not None else None), alt


def _image_part(png: bytes, cid: str) -> MIMEPart:
    """The picture as the inline part of a mail, written out once for all its mails
    (a part is only read when a mail is written out)."""
    part = MIMEPart(policy=MAIL_POLICY)
    part.set_content(png, "image", "png", disposition="inline", cid=f"<{cid}>")
    return part
