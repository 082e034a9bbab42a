"""The server's VAPID key pair (RFC 8292), made once and kept in the instance folder
(`vapid_private.pem`, readable by its owner only): every process of the instance
signs its pushes with it, and the pages give its public half to the browsers as the
application server key a subscription is bound to. A new key pair ends every
subscription (the push services refuse a push signed with another key)."""

from __future__ import annotations

import base64
import os
import secrets
import threading
from pathlib import Path

from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid02

from pbem.config import Settings

FILE = "vapid_private.pem"
_made: dict[Path, Vapid02] = {}
_lock = threading.Lock()


def vapid(settings: Settings) -> Vapid02:
    """The instance's key pair, made (once, whichever process comes first) when there
    is none yet."""
    path = Path(settings.instance_dir) / FILE
    with _lock:
        found = _made.get(path)
        if found is None:
            found = _made[path] = _read_or_make(path)
        return found


def _read_or_make(path: Path) -> Vapid02:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        made = Vapid02()
        made.generate_keys()
        # written whole under another name, then linked into place: a process that
        # reads the file never sees half of it, and of two that race one key wins
        draft = path.with_name(f".{FILE}.{secrets.token_hex(8)}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(made.private_pem())
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return Vapid02.from_file(str(path))


def application_server_key(settings: Settings) -> str:
    """The public key as a browser's pushManager.subscribe takes it: the uncompressed
    P-256 point, base64url without padding."""
    point = vapid(settings).public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(point).decode("ascii").rstrip("=")


def subject(settings: Settings) -> str:
    """The contact the push services are given (the VAPID "sub" claim): the setting
    `vapid_subject`, else the mailto: of the site's sender."""
    return settings.vapid_subject or f"mailto:noreply@{settings.mail_domain}"
