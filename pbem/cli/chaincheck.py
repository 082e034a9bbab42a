"""`pbem chain-check`: a viewer checks a game's hash chain as the server gave it to
them (the answer of GET /api/games/<id>/chain, fetched or saved), with no database
and no trust in the server: pbem.store.chain.check does the work."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
import requests

from pbem.store.chain import check

MOST = 64 * 2**20  # the largest answer read, in bytes
EXIT_BROKEN, EXIT_UNREADABLE = 1, 2


@click.command("chain-check")
@click.argument("source")
@click.option("--token", envvar="PBEM_SEAT_TOKEN", help="Your seat token (else: as a spectator).")
@click.option("--head", "head_hash", help="The head hash you saw on the game's page or a mail.")
def chain_check(source: str, token: str | None, head_hash: str | None) -> None:
    """Check a game's hash chain as you may see it, from the API's answer.

    SOURCE is the URL of /api/games/<id>/chain, or a file holding its answer ("-":
    standard input). Exit 0 when it holds, 1 when something is wrong, 2 when
    SOURCE cannot be read."""
    answer = _read(source, token)
    found = check(answer, head_hash)
    for problem in found.problems:
        click.echo(f"  {problem}", err=True)
    if found.problems:
        click.echo(f"the chain does not hold: {_count(len(found.problems), 'problem')}", err=True)
        sys.exit(EXIT_BROKEN)
    head = answer["head_hash"]
    if found.linked:
        click.echo(
            f"chain version {found.version}: {_count(found.events, 'event')} link to the head"
            f" {head}; {found.in_full} checked in full"
        )
    else:
        click.echo(
            f"chain version {found.version}: {found.in_full} of {found.events} events checked"
            " (a version 1 chain cannot be followed past the events you may not see)"
        )


def _read(source: str, token: str | None) -> Any:
    try:
        if source.startswith(("http://", "https://")):
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            with requests.get(source, headers=headers, timeout=30, stream=True) as answer:
                body = answer.raw.read(MOST + 1, decode_content=True)
                if answer.status_code != 200:
                    raise ValueError(f"HTTP {answer.status_code}: {body[:200]!r}")
        elif source == "-":
            body = sys.stdin.buffer.read(MOST + 1)
        else:
            with open(source, "rb") as file:
                body = file.read(MOST + 1)
        if len(body) > MOST:
            raise ValueError(f"more than {MOST} bytes")
        return json.loads(body)
    except (OSError, ValueError, requests.RequestException) as error:
        click.echo(f"cannot read {source}: {error}", err=True)
        sys.exit(EXIT_UNREADABLE)


def _count(number: int, noun: str) -> str:
    """'1 event', '3 events'."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
