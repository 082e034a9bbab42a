"""Where the package's data lives: the templates, static files, migrations and
settings defaults.

In a checkout (or an editable install) they are the repository's top-level folders;
an installed wheel carries them inside the package, in `pbem/_data/`.
`python -m pbem.resources` prints the folder that holds them, e.g. for
`gunicorn -c "$(python -m pbem.resources)/config/gunicorn.conf.py" ...`."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
FOLDERS = ("templates", "static", "migrations", "config")


class MissingData(RuntimeError):
    """The package's data folders cannot be found (a broken or zipped install)."""


def data_root() -> Path:
    """The folder holding templates/, static/, migrations/ and config/."""
    packaged = files("pbem") / "_data"
    if packaged.is_dir():
        if not isinstance(packaged, Path):
            raise MissingData(
                "pbem's data is inside an archive; install pbem as a normal folder "
                "(pip install the wheel, not a zipped copy)"
            )
        return packaged
    if all((CHECKOUT / folder).is_dir() for folder in FOLDERS):
        return CHECKOUT
    raise MissingData(
        f"pbem's data folders ({', '.join(FOLDERS)}) are neither in the package "
        f"({packaged}) nor in a checkout ({CHECKOUT}): reinstall pbem from its wheel"
    )


ROOT = data_root()
TEMPLATES = ROOT / "templates"
STATIC = ROOT / "static"
MIGRATIONS = ROOT / "migrations"
CONFIG = ROOT / "config"


if __name__ == "__main__":
    print(ROOT)
