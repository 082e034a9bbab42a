"""How every event type decodes: strictly."""

from __future__ import annotations

from pydantic import ConfigDict

# Decoding is strict: a stored payload decodes only when every key is known and of
# its type (no "1" for 1, no true for 1), so encoding what was decoded gives it back.
STRICT = ConfigDict(extra="forbid", strict=True)
