"""A Web Push service for tests, on the loopback: it takes each push (RFC 8030),
keeps it, and answers with the status a test sets for its endpoint; and a browser's
side of a subscription (its P-256 key pair and auth secret), which checks a push's
VAPID signature (RFC 8292: ES256 under the server's public key, `aud` the endpoint's
origin, `exp` ahead) and decrypts its body (aes128gcm, RFC 8291) as a browser does."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Push:
    """One push as the service received it."""

    path: str
    headers: dict[str, str]
    body: bytes


class PushService:
    """The service: `pushes` it took, `answers` (a path's status; 201 unless set)."""

    def __init__(self) -> None:
        self.pushes: list[Push] = []
        self.answers: dict[str, int] = {}
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                service.pushes.append(Push(self.path, headers, body))
                status = service.answers.get(self.path, 201)
                self.send_response(status)
                if 300 <= status < 400:  # sends the push on elsewhere
                    self.send_header("Location", f"{service.origin}/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        # a short poll: shutdown() in `stop` waits for the loop's next turn
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def endpoint(self, name: str) -> str:
        return f"{self.origin}/push/{name}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Device:
    """A browser's subscription to `endpoint`: its keys, as pushManager makes them."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self) -> dict[str, Any]:
        """What PushSubscription.toJSON() gives, as the page posts it."""
        point = self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64(point), "auth": b64(self.auth)},
        }

    def read(self, push: Push, server_key: str, subject: str) -> dict[str, Any]:
        """The notice in `push`, once its VAPID signature is found good for this
        endpoint under `server_key` (the application server key) and `subject`."""
        claims = verified_vapid(push.headers["authorization"], server_key)
        origin = self.endpoint.split("/push/")[0]
        assert claims["aud"] == origin
        assert time.time() < claims["exp"] <= time.time() + 24 * 3600
        assert claims["sub"] == subject
        assert push.headers["content-encoding"] == "aes128gcm"
        plain = http_ece.decrypt(
            push.body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        notice: dict[str, Any] = json.loads(plain.decode("utf-8"))
        return notice


def verified_vapid(header: str, server_key: str) -> dict[str, Any]:
    """The claims of a `vapid t=JWT, k=KEY` Authorization header, once its key is
    `server_key` and its ES256 signature is good under it (else AssertionError or
    cryptography's InvalidSignature)."""
    scheme, _, rest = header.partition(" ")
    assert scheme == "vapid", header
    params = dict(part.strip().split("=", 1) for part in rest.split(","))
    assert params["k"] == server_key
    head, body, signature = params["t"].split(".")
    assert json.loads(unb64(head)) == {"typ": "JWT", "alg": "ES256"}
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(server_key))
    raw = unb64(signature)
    assert len(raw) == 64
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{head}.{body}".encode("ascii"), ec.ECDSA(hashes.SHA256()))
    claims: dict[str, Any] = json.loads(unb64(body))
    return claims
