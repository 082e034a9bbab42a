"""The pages' Content Security Policy: scripts and styles only from this site, and
of inline styles only each game's drawings' own `<style>`, by the hash of its text."""

from __future__ import annotations

import base64
import hashlib
from functools import cache

from pbem.games import GAMES


def _policy(style_src: str) -> str:
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "worker-src 'self'",  # the Web Push service worker, /push-sw.js
            style_src,
            "img-src 'self' data:",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


@cache
def content_security_policy() -> str:
    """Every answer's policy. No style attribute applies, nor any `<style>` but the
    drawings' (`Pages.inline_styles` of every game), allowed by their hashes."""
    drawings = {text for plugin in GAMES.values() for text in plugin.part("pages").inline_styles}
    hashes = sorted(f"'sha256-{_sha256(text)}'" for text in drawings)
    return _policy(" ".join(["style-src 'self'", *hashes]))


def with_inline_styles() -> str:
    """The policy of a dev page that shows a mail's HTML part as a mail reader would,
    inline styles and all, in a sandboxed frame (no script runs in it)."""
    return _policy("style-src 'self' 'unsafe-inline'")


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
