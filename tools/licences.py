"""Whether every distribution pbem needs at runtime may be combined with its licence,
AGPL-3.0-or-later: walks the installed distributions its `dependencies` need (their
extras and environment markers followed, not the dev extras), reads each one's
licence, and prints a table; an unknown or incompatible licence exits with status 1.

    python tools/licences.py [--root NAME] [--path DIR ...]

A licence is read from the metadata in the order PEP 639 gives it weight: the SPDX
`License-Expression`, then the free-text `License` field, then the `License ::`
classifiers; the first that settles the question counts. Only where none does (the
metadata is missing or ambiguous, such as a bare "BSD License" classifier) does an
entry of OVERRIDES say what the package's own licence file says.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Protocol

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

OK, INCOMPATIBLE, UNKNOWN = "ok", "incompatible", "unknown"

# Licences whose code an AGPL-3.0-or-later work may include and be distributed under
# the AGPL (the FSF's list of GPLv3-compatible licences; section 13 of the GPLv3 and
# the AGPLv3 lets the two be combined).
COMPATIBLE = frozenset(
    {
        # permissive
        "0BSD",
        "Apache-2.0",  # compatible with the GPLv3 family (not with GPLv2)
        "Artistic-2.0",
        "BSD-2-Clause",
        "BSD-3-Clause",
        "BSL-1.0",
        "CC0-1.0",
        "HPND",
        "ISC",
        "MIT",
        "MIT-0",
        "MIT-CMU",
        "PSF-2.0",
        "Python-2.0",
        "TCL",
        "UPL-1.0",
        "Unlicense",
        "X11",
        "Zlib",
        # weak copyleft: MPL-2.0 through its section 3.3 (secondary licences), every
        # LGPL because its code may be conveyed under the GPL
        "MPL-2.0",
        "LGPL",
        "LGPL-2.0-only",
        "LGPL-2.0-or-later",
        "LGPL-2.1-only",
        "LGPL-2.1-or-later",
        "LGPL-3.0-only",
        "LGPL-3.0-or-later",
        # strong copyleft of version 3, or a version that may become 3
        "GPL-2.0-or-later",
        "GPL-3.0-only",
        "GPL-3.0-or-later",
        "AGPL-3.0-only",
        "AGPL-3.0-or-later",
    }
)
# Licences known not to be combinable, each with why (a prefix ends with "-").
REFUSED = {
    "GPL-1.0-only": "GPL version 1 only",
    "GPL-2.0-only": "GPL-2.0 without 'or later' cannot join a GPL-3.0 work",
    "LicenseRef-Proprietary": "proprietary",
    "LicenseRef-Freeware": "freeware is not free software",
    "LicenseRef-NonCommercial": "forbids commercial use",
    "SSPL-1.0": "not a free software licence",
    "BUSL-1.1": "source-available, not free software",
    "Elastic-2.0": "source-available, not free software",
    "Commons-Clause": "forbids selling",
    "CC-BY-NC-": "forbids commercial use",
    "CC-BY-ND-": "forbids derivative works",
    "JSON": "'shall be used for Good, not Evil' restricts use",
    "Apache-1.0": "advertising and naming conditions the GPL does not allow",
    "Apache-1.1": "naming conditions the GPL does not allow",
    "BSD-4-Clause": "the advertising clause",
    "MPL-1.0": "copyleft incompatible with the GPL",
    "MPL-1.1": "copyleft incompatible with the GPL",
    "EPL-1.0": "copyleft incompatible with the GPL",
    "CPL-1.0": "copyleft incompatible with the GPL",
    "CDDL-1.0": "copyleft incompatible with the GPL",
    "CDDL-1.1": "copyleft incompatible with the GPL",
    "OpenSSL": "the advertising clause",
    "Artistic-1.0": "too vague for the GPL",
}
# Names that say a family but not which member: the verdict depends on the member.
AMBIGUOUS = {
    "BSD": "which BSD licence? (the 4-clause one is incompatible)",
    "Apache": "which Apache licence? (1.x is incompatible)",
    "GPL": "which GPL version? (2.0-only is incompatible)",
    "AGPL": "which AGPL version?",
    "Artistic": "which Artistic licence? (1.0 is incompatible)",
    "Public-Domain": "a public-domain claim, not a licence",
}

# Free-text `License` fields and their SPDX id, lower case, blanks collapsed.
ALIASES = {
    "mit": "MIT",
    "mit license": "MIT",
    "the mit license": "MIT",
    "expat": "MIT",
    "bsd": "BSD",
    "bsd license": "BSD",
    "new bsd": "BSD-3-Clause",
    "new bsd license": "BSD-3-Clause",
    "modified bsd": "BSD-3-Clause",
    "revised bsd": "BSD-3-Clause",
    "3-clause bsd": "BSD-3-Clause",
    "bsd 3-clause": "BSD-3-Clause",
    "bsd 3-clause license": "BSD-3-Clause",
    "bsd-3": "BSD-3-Clause",
    "simplified bsd": "BSD-2-Clause",
    "2-clause bsd": "BSD-2-Clause",
    "bsd 2-clause": "BSD-2-Clause",
    "bsd 2-clause license": "BSD-2-Clause",
    "freebsd": "BSD-2-Clause",
    "apache": "Apache",
    "apache license": "Apache",
    "apache software license": "Apache",
    "apache 2": "Apache-2.0",
    "apache 2.0": "Apache-2.0",
    "apache-2": "Apache-2.0",
    "apache license 2.0": "Apache-2.0",
    "apache license, version 2.0": "Apache-2.0",
    "apache license version 2.0": "Apache-2.0",
    "apache software license 2.0": "Apache-2.0",
    "psf": "PSF-2.0",
    "psfl": "PSF-2.0",
    "psf license": "PSF-2.0",
    "python software foundation license": "PSF-2.0",
    "mpl 2.0": "MPL-2.0",
    "mpl-2": "MPL-2.0",
    "mozilla public license 2.0": "MPL-2.0",
    "isc license": "ISC",
    "unlicense": "Unlicense",
    "the unlicense": "Unlicense",
    "zlib/libpng": "Zlib",
    "cc0": "CC0-1.0",
    "cc0 1.0": "CC0-1.0",
    "public domain": "Public-Domain",
    "proprietary": "LicenseRef-Proprietary",
    "commercial": "LicenseRef-Proprietary",
    "all rights reserved": "LicenseRef-Proprietary",
}
# Trove classifiers after "License :: " (a bare "OSI Approved" names no licence).
CLASSIFIERS = {
    "OSI Approved :: MIT License": "MIT",
    "OSI Approved :: MIT No Attribution License (MIT-0)": "MIT-0",
    "OSI Approved :: BSD License": "BSD",
    "OSI Approved :: Apache Software License": "Apache",
    "OSI Approved :: ISC License (ISCL)": "ISC",
    "OSI Approved :: Python Software Foundation License": "PSF-2.0",
    "OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)": "MPL-2.0",
    "OSI Approved :: Mozilla Public License 1.1 (MPL 1.1)": "MPL-1.1",
    "OSI Approved :: The Unlicense (Unlicense)": "Unlicense",
    "OSI Approved :: zlib/libpng License": "Zlib",
    "OSI Approved :: Historical Permission Notice and Disclaimer (HPND)": "HPND",
    "OSI Approved :: Boost Software License 1.0 (BSL-1.0)": "BSL-1.0",
    "OSI Approved :: Artistic License": "Artistic",
    "OSI Approved :: Server Side Public License (SSPL)": "SSPL-1.0",
    "OSI Approved :: GNU Affero General Public License v3": "AGPL-3.0-only",
    "OSI Approved :: GNU Affero General Public License v3 or later (AGPLv3+)": "AGPL-3.0-or-later",
    "OSI Approved :: GNU General Public License (GPL)": "GPL",
    "OSI Approved :: GNU General Public License v2 (GPLv2)": "GPL-2.0-only",
    "OSI Approved :: GNU General Public License v2 or later (GPLv2+)": "GPL-2.0-or-later",
    "OSI Approved :: GNU General Public License v3 (GPLv3)": "GPL-3.0-only",
    "OSI Approved :: GNU General Public License v3 or later (GPLv3+)": "GPL-3.0-or-later",
    "OSI Approved :: GNU Library or Lesser General Public License (LGPL)": "LGPL",
    "OSI Approved :: GNU Lesser General Public License v2 (LGPLv2)": "LGPL-2.0-only",
    "OSI Approved :: GNU Lesser General Public License v2 or later (LGPLv2+)": "LGPL-2.0-or-later",
    "OSI Approved :: GNU Lesser General Public License v3 (LGPLv3)": "LGPL-3.0-only",
    "OSI Approved :: GNU Lesser General Public License v3 or later (LGPLv3+)": "LGPL-3.0-or-later",
    "CC0 1.0 Universal (CC0 1.0) Public Domain Dedication": "CC0-1.0",
    "Public Domain": "Public-Domain",
    "Other/Proprietary License": "LicenseRef-Proprietary",
    "Freeware": "LicenseRef-Freeware",
    "Free for non-commercial use": "LicenseRef-NonCommercial",
    "Free For Educational Use": "LicenseRef-NonCommercial",
    "Free For Home Use": "LicenseRef-NonCommercial",
}


@dataclass(frozen=True)
class Override:
    """What a package's licence is where its metadata does not say it clearly."""

    expression: str
    checked: str


# Only where the metadata is missing or ambiguous; each says where it was checked.
OVERRIDES = {
    # License "BSD", classifier "BSD License"; LICENSE in the 5.4.2 wheel: "The BSD
    # License (3 Clause, also known as the new BSD license)"
    "amqp": Override("BSD-3-Clause", "LICENSE in amqp 5.4.2's wheel"),
    # License "BSD"; LICENSE.txt in the 4.3.2 wheel has the three clauses ("Neither
    # the name of author nor the names of any contributors may be used to endorse")
    "billiard": Override("BSD-3-Clause", "LICENSE.txt in billiard 4.3.2's wheel"),
    # classifier "BSD License"; LICENSE in the 1.7.1 wheel is headed "BSD 3-Clause"
    "cairocffi": Override("BSD-3-Clause", "LICENSE in cairocffi 1.7.1's wheel"),
    # classifier "BSD License"; LICENSE in the 0.10.1 wheel is headed "BSD 3-Clause"
    "cssselect2": Override("BSD-3-Clause", "LICENSE in cssselect2 0.10.1's wheel"),
    # License "FreeBSD and LGPLv3+"; its description: "licensed under the terms of
    # both, the FreeBSD license and the LGPLv3+. Choose the one [...]"
    "feedgen": Override("BSD-2-Clause OR LGPL-3.0-or-later", "feedgen 1.0.0's description"),
    # License is the licence's text; LICENSE.rst in the 1.3.0 wheel has three clauses
    "flask-wtf": Override("BSD-3-Clause", "LICENSE.rst in flask-wtf 1.3.0's wheel"),
    # classifier "BSD License"; LICENSE.txt in the 2.2.0 wheel: the three clauses
    "itsdangerous": Override("BSD-3-Clause", "LICENSE.txt in itsdangerous 2.2.0's wheel"),
    # classifier "BSD License"; LICENSE.txt in the 3.1.6 wheel: the three clauses
    "jinja2": Override("BSD-3-Clause", "LICENSE.txt in jinja2 3.1.6's wheel"),
    # classifier "BSD License"; LICENSE in the 3.0.53 wheel: the three clauses
    "prompt-toolkit": Override("BSD-3-Clause", "LICENSE in prompt-toolkit 3.0.53's wheel"),
    # License "Dual License", classifiers BSD and Apache; LICENSE in the 2.9.0.post0
    # wheel: Apache-2.0 for contributions since 2017-12-01, and BSD-3-Clause for all
    "python-dateutil": Override(
        "Apache-2.0 AND BSD-3-Clause", "LICENSE in python-dateutil 2.9.0.post0's wheel"
    ),
    # classifier "BSD License"; LICENSE in the 1.5.1 wheel is headed "BSD 3-Clause"
    "tinycss2": Override("BSD-3-Clause", "LICENSE in tinycss2 1.5.1's wheel"),
    # License "BSD"; LICENSE in the 5.1.0 wheel: "The BSD License (3 Clause [...])"
    "vine": Override("BSD-3-Clause", "LICENSE in vine 5.1.0's wheel"),
    # classifier "BSD License"; LICENSE in the 0.6.1 wheel is headed "BSD 3-Clause"
    "webencodings": Override("BSD-3-Clause", "LICENSE in webencodings 0.6.1's wheel"),
    # License is the licence's text; LICENSE.rst in the 3.3.2 wheel has three clauses
    "wtforms": Override("BSD-3-Clause", "LICENSE.rst in wtforms 3.3.2's wheel"),
}


@dataclass(frozen=True)
class Verdict:
    """One licence expression judged: ok, incompatible or unknown, and why not ok."""

    licence: str
    verdict: str
    why: str = ""


def judge_id(licence: str) -> Verdict:
    """The verdict on one licence id (an expression's leaf)."""
    if licence in COMPATIBLE:
        return Verdict(licence, OK)
    for refused, why in REFUSED.items():
        if licence == refused or (refused.endswith("-") and licence.startswith(refused)):
            return Verdict(licence, INCOMPATIBLE, f"{licence}: {why}")
    if licence in AMBIGUOUS:
        return Verdict(licence, UNKNOWN, f"{licence}: {AMBIGUOUS[licence]}")
    return Verdict(licence, UNKNOWN, f"{licence}: not a known licence")


_GNU = re.compile(
    r"(?i)(a|l)?gpl[ -]?v?(\d)(?:\.(\d))?(\+|-only|-or-later| or later)?(?: license)?"
)
_KNOWN = {name.lower(): name for name in (*COMPATIBLE, *REFUSED, *AMBIGUOUS)}
_DEPRECATED_GNU = {"GPL", "LGPL", "AGPL"}


def spdx_id(word: str) -> str | None:
    """The SPDX id a word of a licence field stands for, or None."""
    gnu = _GNU.fullmatch(word)
    if gnu:
        family = (gnu[1] or "").upper() + "GPL"
        minor = gnu[3] or "0"
        later = gnu[4] in ("+", "-or-later", " or later")
        return f"{family}-{gnu[2]}.{minor}-{'or-later' if later else 'only'}"
    if word.upper() in _DEPRECATED_GNU:
        return word.upper()
    if word.startswith("LicenseRef-"):
        return word
    for refused in REFUSED:
        if refused.endswith("-") and word.upper().startswith(refused.upper()):
            return word
    return _KNOWN.get(word.lower()) or ALIASES.get(" ".join(word.lower().split()))


def judge_expression(text: str, strict: bool = False) -> Verdict | None:
    """An SPDX expression (AND, OR, WITH, parentheses) judged: OR is ok when one side
    is, AND when both are; an exception (WITH) only adds permissions, so the licence
    it modifies decides. None when the text is no expression of known ids; `strict`
    (a License-Expression, SPDX by definition) keeps an unknown id as unknown."""
    whole = spdx_id(text.strip())
    if whole is not None:
        return judge_id(whole)
    tokens: list[str] = re.findall(r"\(|\)|[^\s()]+", text)
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def combine(operator: str, parts: list[Verdict]) -> Verdict:
        if len(parts) == 1:
            return parts[0]
        licence = f" {operator} ".join(
            f"({p.licence})" if " " in p.licence else p.licence for p in parts
        )
        verdicts = [p.verdict for p in parts]
        decisive = OK if operator == "OR" else INCOMPATIBLE
        if decisive in verdicts:
            verdict = decisive
        else:
            verdict = UNKNOWN if UNKNOWN in verdicts else verdicts[0]
        why = "; ".join(p.why for p in parts if p.why) if verdict != OK else ""
        return Verdict(licence, verdict, why)

    def expression() -> Verdict | None:
        parts = [conjunction()]
        while peek() == "OR":
            take()
            parts.append(conjunction())
        return None if None in parts else combine("OR", [p for p in parts if p])

    def conjunction() -> Verdict | None:
        parts = [atom()]
        while peek() == "AND":
            take()
            parts.append(atom())
        return None if None in parts else combine("AND", [p for p in parts if p])

    def atom() -> Verdict | None:
        word = peek()
        if word is None or word in ("AND", "OR", "WITH", ")"):
            return None
        take()
        if word == "(":
            inner = expression()
            return inner if take_if(")") else None
        licence = spdx_id(word) or (word if strict else None)
        if licence is None:
            return None
        judged = judge_id(licence)
        if peek() == "WITH":
            take()
            exception = take() if peek() not in (None, "(", ")") else None
            if exception is None:
                return None
            return Verdict(f"{licence} WITH {exception}", judged.verdict, judged.why)
        return judged

    def take_if(token: str) -> bool:
        if peek() == token:
            take()
            return True
        return False

    judged = expression() if tokens else None
    return judged if judged is not None and position == len(tokens) else None


def from_classifiers(classifiers: Iterable[str]) -> Verdict | None:
    """The licence the `License ::` classifiers name, all of them required (a package
    naming two may mean either; requiring both is the safe reading)."""
    found = []
    for classifier in classifiers:
        if not classifier.startswith("License :: ") or classifier == "License :: OSI Approved":
            continue
        tail = classifier.removeprefix("License :: ")
        found.append(CLASSIFIERS.get(tail, f"LicenseRef-classifier({tail})"))
    return judge_expression(" AND ".join(dict.fromkeys(found))) if found else None


@dataclass(frozen=True)
class Row:
    """One distribution's line of the table."""

    name: str
    version: str
    licence: str
    source: str
    verdict: str
    why: str


class Metadata(Protocol):
    """What `classify` reads of a distribution's metadata (an email Message has it)."""

    def get_all(self, name: str, failobj: Any = None) -> list[Any] | None: ...


def _field(meta: Metadata, name: str) -> str:
    values = meta.get_all(name) or [""]
    return str(values[0]).strip()


def classify(name: str, version: str, meta: Metadata) -> Row:
    """The verdict on one distribution from its metadata (PEP 639's order), or from
    OVERRIDES where the metadata settles nothing."""
    candidates: list[tuple[str, Verdict | None]] = []
    expression = _field(meta, "License-Expression")
    if expression:
        candidates.append(("License-Expression", judge_expression(expression, strict=True)))
    field = _field(meta, "License")
    if field and "\n" not in field and field.upper() != "UNKNOWN":
        candidates.append(("License", judge_expression(field)))
    candidates.append(("classifiers", from_classifiers(meta.get_all("Classifier") or [])))
    judged = [(source, v) for source, v in candidates if v is not None]
    for source, verdict in judged:
        if verdict.verdict != UNKNOWN:
            return Row(name, version, verdict.licence, source, verdict.verdict, verdict.why)
    override = OVERRIDES.get(canonicalize_name(name))
    if override is not None:
        verdict = judge_expression(override.expression) or judge_id(override.expression)
        return Row(name, version, verdict.licence, "override", verdict.verdict, verdict.why)
    if judged:
        source, verdict = judged[0]
        return Row(name, version, verdict.licence, source, UNKNOWN, verdict.why)
    return Row(name, version, "?", "-", UNKNOWN, "the metadata names no licence")


def _find(name: str, path: Sequence[str] | None) -> metadata.Distribution | None:
    found = metadata.distributions(name=name, path=list(path) if path else sys.path)
    return next(iter(found), None)


def _wanted(marker: Marker | None, extras: Iterable[str]) -> bool:
    if marker is None:
        return True
    return any(marker.evaluate({"extra": extra}) for extra in ("", *extras))


def runtime_rows(root: str = "pbem", path: Sequence[str] | None = None) -> list[Row]:
    """A row for every distribution `root` needs at runtime: the closure of its
    requirements with their extras, under this environment's markers; a required
    distribution that is not installed is a row of its own (it cannot be checked)."""
    top = _find(root, path)
    if top is None:
        raise SystemExit(f"{root} is not installed: install it (pip install -e .) first")
    rows: dict[str, Row] = {}
    done: set[tuple[str, frozenset[str]]] = set()
    todo = [r for r in map(Requirement, top.requires or []) if _wanted(r.marker, ())]
    while todo:
        requirement = todo.pop()
        key = (canonicalize_name(requirement.name), frozenset(requirement.extras))
        if key in done:
            continue
        done.add(key)
        found = _find(requirement.name, path)
        if found is None:
            rows[key[0]] = Row(key[0], "-", "?", "-", UNKNOWN, "required but not installed")
            continue
        name = canonicalize_name(found.metadata["Name"])
        if name not in rows:
            rows[name] = classify(name, found.version, found.metadata)
        for line in found.requires or []:
            needed = Requirement(line)
            if _wanted(needed.marker, requirement.extras):
                todo.append(needed)
    return sorted(rows.values(), key=lambda row: row.name)


def table(rows: Sequence[Row]) -> str:
    """The rows as an aligned table, a reason under each row that is not ok."""
    head = ("name", "version", "licence", "from", "verdict")
    cells = [head, *((r.name, r.version, r.licence, r.source, r.verdict) for r in rows)]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    lines = []
    for cell, row in zip(cells, (None, *rows), strict=True):
        lines.append("  ".join(c.ljust(w) for c, w in zip(cell, widths, strict=True)).rstrip())
        if row is not None and row.why:
            lines.append(f"    {row.why}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table; 1 when a licence is unknown or incompatible."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default="pbem", help="the distribution to check")
    parser.add_argument("--path", action="append", help="look for distributions here only")
    args = parser.parse_args(argv)
    rows = runtime_rows(args.root, args.path)
    print(table(rows))
    failed = [row.name for row in rows if row.verdict != OK]
    if failed:
        print(f"\n{len(failed)} of {len(rows)} not shown compatible: {', '.join(failed)}")
        return 1
    print(f"\nall {len(rows)} runtime distributions compatible with AGPL-3.0-or-later")
    return 0


if __name__ == "__main__":
    sys.exit(main())
