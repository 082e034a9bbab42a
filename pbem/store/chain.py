"""Checking a game's hash chain as one viewer received it (the answer of
`GET /api/games/<id>/chain`): pure, with no database, so that anyone can run it on
an answer they saved. Version 2: every link from the commitments, each commitment
whose fields and salt were disclosed, and the last hash against the head the pages
show. Version 1 (no salts): each disclosed event's hash where the one before it is
disclosed too, and the head when the last event is disclosed."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.events import CHAIN_V1, CHAIN_V2, GENESIS, commitment, event_hash, link_hash

_HEX64 = re.compile(r"[0-9a-f]{64}")
_SALT = re.compile(r"[0-9a-f]{32,128}")
FIELDS = ("type", "payload", "actor", "created_at")  # what an event in full discloses


@dataclass
class Checked:
    """What checking an answer found: `problems` (empty when everything disclosed
    holds), how many events there are and how many were checked in full, and
    whether the chain was followed link by link to the head (`linked`)."""

    version: int | None = None
    events: int = 0
    in_full: int = 0
    linked: bool = False
    problems: list[str] = field(default_factory=list)


def check(answer: object, head_hash: str | None = None) -> Checked:
    """Check a chain answer; `head_hash` is the head the viewer saw elsewhere (a
    page's Details, a mail's footer), compared as well when given. A malformed
    answer is a problem, never an exception."""
    found = Checked()
    if not isinstance(answer, Mapping):
        found.problems.append("the answer is not a JSON object")
        return found
    version, events, head = answer.get("chain"), answer.get("events"), answer.get("head_hash")
    if not isinstance(head, str) or not _HEX64.fullmatch(head):
        found.problems.append("the answer has no head_hash (64 hex digits)")
        return found
    if head_hash is not None and head_hash.strip().lower() != head:
        found.problems.append(f"the answer's head {head} is not the head you saw, {head_hash}")
    if not isinstance(events, list) or not all(isinstance(e, Mapping) for e in events):
        found.problems.append('the answer has no list of "events"')
        return found
    seqs = [e.get("seq") for e in events]
    if seqs != list(range(1, len(events) + 1)):
        found.problems.append("the events are not seq 1, 2, 3, ... without a gap")
        return found
    if answer.get("head_seq") != len(events):
        found.problems.append(f"the head_seq is not the last event's seq, {len(events)}")
    found.events = len(events)
    if version == CHAIN_V2:
        found.version = CHAIN_V2
        _check_v2(events, head, found)
    elif version == CHAIN_V1:
        found.version = CHAIN_V1
        _check_v1(events, head, found)
    else:
        found.problems.append(f"unknown chain version {version!r:.20}")
    return found


def _fields(event: Mapping[str, Any], found: Checked) -> tuple[Any, ...] | None:
    """The disclosed fields of an event in order, None when it is not in full."""
    if not any(name in event for name in FIELDS):
        return None
    values = tuple(event.get(name) for name in FIELDS)
    type, payload, actor, created_at = values
    if not (
        isinstance(type, str)
        and isinstance(payload, Mapping)
        and isinstance(actor, str)
        and isinstance(created_at, str)
    ):
        found.problems.append(f"seq {event['seq']}: its disclosed fields are malformed")
        return None
    return values


def _check_v2(events: list[Mapping[str, Any]], head: str, found: Checked) -> None:
    previous = GENESIS
    for event in events:
        seq, committed = event["seq"], event.get("commitment")
        if not isinstance(committed, str) or not _HEX64.fullmatch(committed):
            found.problems.append(f"seq {seq}: no commitment (64 hex digits)")
            return
        fields = _fields(event, found)
        salt = event.get("salt")
        if fields is not None:
            if not isinstance(salt, str) or not _SALT.fullmatch(salt):
                found.problems.append(f"seq {seq}: disclosed without its salt")
            elif commitment(salt, seq, *fields) != committed:
                found.problems.append(f"seq {seq}: its fields and salt do not give its commitment")
            else:
                found.in_full += 1
        elif salt is not None:
            found.problems.append(f"seq {seq}: a salt without the fields it commits to")
        previous = link_hash(previous, seq, committed)
    if previous != head:
        found.problems.append(f"the commitments link to {previous}, not to the head {head}")
    else:
        found.linked = True


def _check_v1(events: list[Mapping[str, Any]], head: str, found: Checked) -> None:
    previous: str | None = GENESIS
    for event in events:
        seq, digest = event["seq"], event.get("hash")
        fields = _fields(event, found)
        if fields is None:
            previous = None  # a hidden event: the next one's link cannot be checked
            continue
        if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
            found.problems.append(f"seq {seq}: disclosed without its hash")
            previous = None
            continue
        if previous is not None:
            if event_hash(previous, seq, *fields) != digest:
                found.problems.append(f"seq {seq}: its fields do not give its hash")
            else:
                found.in_full += 1
        previous = digest
    last = events[-1] if events else None
    if last is not None and "hash" in last:
        if last["hash"] != head:
            found.problems.append(f"the last event's hash is not the head {head}")
        else:
            found.linked = found.in_full == len(events)
