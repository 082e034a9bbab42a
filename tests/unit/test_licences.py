"""The licence check of tools/licences.py: every distribution pbem needs at runtime is
under a licence an AGPL-3.0-or-later work may include, and the check refuses one that
is not (metadata records of its own, and a fake installed environment, prove it)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from email.message import Message
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from licences import (
    INCOMPATIBLE,
    OK,
    OVERRIDES,
    UNKNOWN,
    classify,
    judge_expression,
    runtime_rows,
)

ROOT = Path(__file__).resolve().parents[2]


def record(**fields: str | list[str]) -> Message:
    """A distribution's metadata as importlib.metadata gives it (an email Message)."""
    meta = Message()
    for name, value in fields.items():
        for one in value if isinstance(value, list) else [value]:
            meta[name.replace("_", "-")] = one
    return meta


def test_the_project_is_agpl_3_or_later():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "AGPL-3.0-or-later"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="ascii")
    assert text.split("\n")[1:3] == [
        "                    GNU AFFERO GENERAL PUBLIC LICENSE",
        "                       Version 3, 19 November 2007",
    ]
    assert "/LICENSE" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_every_runtime_distribution_is_compatible():
    rows = runtime_rows("pbem")
    names = {row.name for row in rows}
    # the walk follows requirements down (werkzeug through flask), extras
    # (redis through celery[redis], psycopg-binary through psycopg[binary]), and
    # leaves the dev extras out
    assert {"diplomacy", "flask", "werkzeug", "redis", "psycopg-binary"} <= names
    assert not {"pytest", "hypothesis", "ruff", "mypy", "pbem"} & names
    wrong = [(r.name, r.version, r.licence, r.verdict, r.why) for r in rows if r.verdict != OK]
    assert not wrong, f"runtime dependencies not shown compatible with AGPL-3.0-or-later: {wrong}"
    diplomacy = next(row for row in rows if row.name == "diplomacy")
    assert diplomacy.licence == "AGPL-3.0-or-later"


@pytest.mark.parametrize(
    ("fields", "licence", "verdict"),
    [
        ({"License_Expression": "MIT"}, "MIT", OK),
        ({"License_Expression": "GPL-2.0-only"}, "GPL-2.0-only", INCOMPATIBLE),
        ({"License_Expression": "GPL-2.0-or-later"}, "GPL-2.0-or-later", OK),
        ({"License_Expression": "SSPL-1.0"}, "SSPL-1.0", INCOMPATIBLE),
        ({"License_Expression": "CC-BY-NC-4.0"}, "CC-BY-NC-4.0", INCOMPATIBLE),
        ({"License_Expression": "MIT OR GPL-2.0-only"}, "MIT OR GPL-2.0-only", OK),
        ({"License_Expression": "MIT AND GPL-2.0-only"}, "MIT AND GPL-2.0-only", INCOMPATIBLE),
        (
            {"License_Expression": "MPL-2.0 AND (Apache-2.0 OR SSPL-1.0)"},
            "MPL-2.0 AND (Apache-2.0 OR SSPL-1.0)",
            OK,
        ),
        (
            {"License_Expression": "GPL-2.0-or-later WITH Classpath-exception-2.0"},
            "GPL-2.0-or-later WITH Classpath-exception-2.0",
            OK,
        ),
        ({"License_Expression": "LicenseRef-Acme-EULA"}, "LicenseRef-Acme-EULA", UNKNOWN),
        ({"License_Expression": "Made-Up-1.0"}, "Made-Up-1.0", UNKNOWN),
        ({"License": "GPLv2"}, "GPL-2.0-only", INCOMPATIBLE),
        ({"License": "LGPLv3+"}, "LGPL-3.0-or-later", OK),
        ({"License": "Apache 2.0"}, "Apache-2.0", OK),
        ({"License": "Proprietary"}, "LicenseRef-Proprietary", INCOMPATIBLE),
        ({"License": "BSD"}, "BSD", UNKNOWN),
        (
            {"Classifier": ["License :: Other/Proprietary License"]},
            "LicenseRef-Proprietary",
            INCOMPATIBLE,
        ),
        ({"Classifier": ["License :: OSI Approved :: MIT License"]}, "MIT", OK),
        (
            {"Classifier": ["License :: OSI Approved :: GNU General Public License v2 (GPLv2)"]},
            "GPL-2.0-only",
            INCOMPATIBLE,
        ),
        (
            {
                "Classifier": [
                    "License :: OSI Approved",
                    "License :: OSI Approved :: MIT License",
                    "License :: Free for non-commercial use",
                ]
            },
            "MIT AND LicenseRef-NonCommercial",
            INCOMPATIBLE,
        ),
        ({"Classifier": ["License :: OSI Approved :: BSD License"]}, "BSD", UNKNOWN),
        ({"License": "UNKNOWN"}, "?", UNKNOWN),
        ({}, "?", UNKNOWN),
    ],
)
def test_a_metadata_record_is_judged(fields, licence, verdict):
    row = classify("somepackage", "1.0", record(**fields))
    assert (row.licence, row.verdict) == (licence, verdict)
    assert bool(row.why) == (verdict != OK)


def test_the_metadata_comes_in_pep_639s_order():
    # a clear License-Expression wins over the older fields, and a License field that
    # settles nothing gives way to the classifiers
    row = classify(
        "x",
        "1",
        record(
            License_Expression="GPL-2.0-only",
            License="MIT",
            Classifier="License :: OSI Approved :: MIT License",
        ),
    )
    assert (row.source, row.verdict) == ("License-Expression", INCOMPATIBLE)
    row = classify(
        "x",
        "1",
        record(License="Dual License", Classifier="License :: OSI Approved :: ISC License (ISCL)"),
    )
    assert (row.source, row.licence, row.verdict) == ("classifiers", "ISC", OK)


def test_an_override_counts_only_where_the_metadata_settles_nothing():
    ambiguous = record(Classifier="License :: OSI Approved :: BSD License")
    assert classify("unlisted", "1", ambiguous).verdict == UNKNOWN
    row = classify("Jinja2", "3.1.6", ambiguous)
    assert (row.source, row.licence, row.verdict) == ("override", "BSD-3-Clause", OK)
    # a newer release whose metadata says otherwise is judged on its metadata
    row = classify("jinja2", "9", record(License_Expression="SSPL-1.0"))
    assert (row.source, row.verdict) == ("License-Expression", INCOMPATIBLE)


@pytest.mark.parametrize("name", sorted(OVERRIDES))
def test_every_override_is_a_compatible_expression(name):
    override = OVERRIDES[name]
    judged = judge_expression(override.expression, strict=True)
    assert judged is not None and judged.verdict == OK, judged
    assert override.checked


def _install(site: Path, name: str, *lines: str) -> None:
    """A distribution's dist-info, as pip leaves it, with metadata `lines`."""
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    text = "\n".join(["Metadata-Version: 2.4", f"Name: {name}", "Version: 1.0", *lines])
    (info / "METADATA").write_text(text + "\n", encoding="utf-8")


def _run(site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "licences.py"), "--root", "app", "--path", str(site)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_check_fails_on_an_incompatible_dependency(tmp_path):
    _install(
        tmp_path,
        "app",
        "Requires-Dist: fine",
        "Requires-Dist: host[db]",
        'Requires-Dist: devtool; extra == "dev"',
    )
    _install(tmp_path, "fine", "License-Expression: MIT")
    _install(tmp_path, "host", "License: BSD-3-Clause", 'Requires-Dist: dbdriver; extra == "db"')
    _install(tmp_path, "dbdriver", "License-Expression: Apache-2.0")
    _install(tmp_path, "devtool", "License-Expression: SSPL-1.0")  # a dev extra: not checked
    done = _run(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()[1:4]] == [
        "dbdriver",
        "fine",
        "host",
    ]
    assert "devtool" not in done.stdout

    # the driver behind the extra turns proprietary: the check fails and says why
    (tmp_path / "dbdriver-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: dbdriver\nVersion: 1.0\n"
        "Classifier: License :: Other/Proprietary License\n",
        encoding="utf-8",
    )
    done = _run(tmp_path)
    assert done.returncode == 1, done.stdout
    assert ["dbdriver", "1.0", "LicenseRef-Proprietary", "classifiers", "incompatible"] in [
        line.split() for line in done.stdout.splitlines()
    ]
    assert "1 of 3 not shown compatible: dbdriver" in done.stdout


def test_the_check_fails_on_a_dependency_it_cannot_read(tmp_path):
    _install(tmp_path, "app", "Requires-Dist: silent", "Requires-Dist: absent>=2")
    _install(tmp_path, "silent")
    done = _run(tmp_path)
    assert done.returncode == 1, done.stdout
    assert "the metadata names no licence" in done.stdout
    assert "required but not installed" in done.stdout
    assert "2 of 2 not shown compatible: absent, silent" in done.stdout
