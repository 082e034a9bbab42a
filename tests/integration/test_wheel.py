"""The built wheel installs anywhere: it carries the templates, static files,
migrations and settings defaults, and a server runs from it in a folder that is not
the checkout — `pbem db upgrade`, gunicorn with the shipped config, `pbem worker` and
`pbem scheduler` — and plays a game against a bot to its end, mail included.

The new virtual environment borrows the project's dependencies through a `.pth` line
(a plain path: the editable install's hook there does not run), so the `pbem` it
imports is the wheel's."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest
import requests
from aiosmtpd.controller import Controller

from pbem.games import GAMES

ROOT = Path(__file__).resolve().parents[2]
SHORT_GAME = {
    "supply": ["Y01", "B01", "G01", "R13", "Y02", "B02", "G02", "R01", "Y03", "B03", "G03", "R02"],
    "commons": ["haunted-hotel"],
    "secrets": {"1": "O3", "2": "O5"},
}
ADMIN_KEY = "wheel-admin-key"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def eventually(condition, what: str, logs: Path, timeout: float = 60.0) -> None:
    """Wait for another process to do something (not for a clock); on a timeout,
    show what the processes logged."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            shown = "\n".join(
                f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}"
                for log in sorted(logs.glob("*.log"))
            )
            raise AssertionError(f"timed out waiting for {what}\n{shown}")
        time.sleep(0.2)


class Mailbox:
    """An SMTP server's handler that keeps every message it accepts."""

    def __init__(self) -> None:
        self.messages: list = []

    async def handle_DATA(self, server, session, envelope) -> str:
        self.messages.append(
            BytesParser(policy=policy.default).parsebytes(envelope.original_content)
        )
        return "250 OK"

    def kinds(self) -> list[tuple[str, str]]:
        return [(m["X-Pbem-Kind"], m["To"].addresses[0].addr_spec) for m in self.messages]


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh virtual environment outside the checkout with the built wheel in it."""
    base = tmp_path_factory.mktemp("wheel")
    dist = base / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation"]
        + ["--quiet", "-w", str(dist)],
        check=True,
        cwd=base,
    )
    (wheel,) = dist.glob("pbem-*.whl")
    env = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # the project's dependencies, without its editable `pbem`
    Path(purelib, "project-dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"]
        + ["--no-deps", "--no-index", str(wheel)],
        check=True,
        cwd=base,
    )
    return env


@pytest.mark.slow  # builds a wheel and a virtual environment
def test_the_wheel_carries_the_data_and_imports_from_the_new_environment(venv, tmp_path):
    where = subprocess.run(
        [
            venv / "bin" / "python",
            "-c",
            "import pbem, worker\n"
            "from pbem import resources\n"
            "from pbem.config import load_settings\n"
            "print(pbem.__file__, worker.__file__, resources.TEMPLATES, resources.STATIC,"
            " resources.MIGRATIONS, resources.CONFIG, load_settings().instance_dir, sep='\\n')",
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if not k.startswith("PBEM_")},
    ).stdout.split("\n")
    package, worker_package, templates, static, migrations, config, instance = where[:7]
    assert Path(package).is_relative_to(venv) and Path(worker_package).is_relative_to(venv)
    for folder in (templates, static, migrations, config):
        assert Path(folder).is_relative_to(venv / "lib"), folder
    assert (Path(templates) / "game.html").is_file()
    assert (Path(templates) / "mail" / "invitation.txt").is_file()
    assert (Path(static) / "site.css").read_bytes() == (ROOT / "static" / "site.css").read_bytes()
    assert sorted(p.name for p in Path(migrations, "versions").glob("*.py")) == sorted(
        p.name for p in (ROOT / "migrations" / "versions").glob("*.py")
    )
    assert (Path(config) / "defaults.toml").is_file()
    assert (Path(config) / "gunicorn.conf.py").is_file()
    # the instance folder is the current directory's, never inside site-packages
    assert Path(instance) == tmp_path / "instance"
    # every language's catalogs, the site's and each game's, are in the wheel
    german = subprocess.run(
        [
            venv / "bin" / "python",
            "-c",
            "from pbem import i18n\n"
            "import pbem.games\n"
            "print(*(p.name for p in i18n.catalog_files('de')))\n"
            "with i18n.speaking('de'):\n"
            "    print(i18n.gettext('New game'))",
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    ).stdout.split("\n")
    games = [f"{name}.po" for name in GAMES]  # each registered game's own catalog
    assert german[0].split() == ["mails.po", "pages.po", "service.po", *games]
    assert german[1] not in ("", "New game")


@pytest.fixture
def server(venv, tmp_path):
    """gunicorn, a worker and the scheduler, all from the wheel, in a folder that is
    not the checkout; mail goes to an SMTP server in this process."""
    mailbox = Mailbox()
    smtp_port = _free_port()
    smtp = Controller(mailbox, hostname="127.0.0.1", port=smtp_port)
    smtp.start()
    home = tmp_path / "elsewhere"
    home.mkdir()
    logs = tmp_path / "logs"
    logs.mkdir()
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.pop("PYTHONPATH", None)
    env.update(
        {
            "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'pbem.sqlite3'}",
            "PBEM_SECRET_KEY": "wheel-secret",
            "PBEM_ADMIN_KEY": ADMIN_KEY,
            "PBEM_INSTANCE_DIR": str(tmp_path / "instance"),
            "PBEM_BROKER_URL": "filesystem://",
            "PBEM_SMTP_URL": f"smtp://127.0.0.1:{smtp_port}",
            "PBEM_BASE_URL": f"http://127.0.0.1:{port}",
            "PBEM_SWEEP_SECONDS": "1",
        }
    )
    bin_ = venv / "bin"
    subprocess.run(
        [bin_ / "pbem", "db", "upgrade"], check=True, cwd=home, env=env, capture_output=True
    )
    data = subprocess.run(  # as the README has it: "$(python -m pbem.resources)"
        [bin_ / "python", "-m", "pbem.resources"],
        check=True,
        capture_output=True,
        text=True,
        cwd=home,
        env=env,
    ).stdout.strip()
    assert Path(data).is_relative_to(venv)
    commands = {
        "gunicorn": [bin_ / "python", "-m", "gunicorn", "-c", f"{data}/config/gunicorn.conf.py"]
        + ["-w", "2", "-b", f"127.0.0.1:{port}", "pbem.web.app:create_app()"],
        "worker": [bin_ / "pbem", "worker", "--concurrency", "1", "--loglevel", "WARNING"],
        "scheduler": [bin_ / "pbem", "scheduler"],
    }
    processes = []
    try:
        for name, command in commands.items():
            with open(logs / f"{name}.log", "wb") as log:
                processes.append(
                    subprocess.Popen(
                        command,
                        cwd=home,
                        env=env,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        base = f"http://127.0.0.1:{port}"

        def answers() -> bool:
            try:
                return requests.get(base + "/", timeout=10).status_code == 200
            except requests.RequestException:  # not listening yet, or a worker still booting
                return False

        eventually(answers, "gunicorn to answer", logs)
        yield type("Server", (), {"base": base, "mailbox": mailbox, "logs": logs})()
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            # nothing the process started outlives it
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        smtp.stop()


@pytest.mark.slow  # starts a server, worker and scheduler from the wheel
def test_a_server_from_the_wheel_plays_a_game_against_a_bot_to_the_end(server):
    base, mailbox, logs = server.base, server.mailbox, server.logs
    page = requests.get(base + "/", timeout=10)
    assert page.status_code == 200 and "New game" in page.text
    css = requests.get(base + "/static/site.css", timeout=10)
    assert css.status_code == 200
    assert css.content == (ROOT / "static" / "site.css").read_bytes()
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    created = requests.post(
        base + "/api/games",
        json={
            "players": [
                {"name": "Ann", "email": "ann@example.com"},
                {"name": "Robo", "bot": "greedy"},
            ],
            "options": {"hours_per_turn": None},
            "setup": SHORT_GAME,
        },
        headers=admin,
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game = created.json()["id"]
    (ann,) = [s["token"] for s in created.json()["seats"] if s["seat"] == 1]
    seat = {"Authorization": f"Bearer {ann}"}

    browser = requests.Session()
    shown = browser.get(f"{base}/g/{game}/{ann}", timeout=10)
    assert shown.status_code == 200 and shown.url == f"{base}/g/{game}"
    assert "Ann" in shown.text and ann not in shown.text

    def state() -> dict:
        answer = requests.get(f"{base}/api/games/{game}", headers=seat, timeout=10)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def turn_mails() -> int:  # the first mover's invitation is their first turn mail
        return sum(
            m["X-Pbem-Kind"] == "your_turn" or m["Subject"].endswith("it is your turn")
            for m in mailbox.messages
        )

    moves = 0
    while True:  # Ann moves once her turn mail has come, as a player by mail does
        eventually(lambda: state()["turn"] in (1, None), "the bot's move", logs)
        if state()["turn"] is None:
            break
        eventually(lambda n=moves: turn_mails() > n, "Ann's turn mail", logs)
        legal = requests.get(f"{base}/api/games/{game}/legal", headers=seat, timeout=10).json()
        played = requests.post(
            f"{base}/api/games/{game}/actions",
            json={"action": legal["legal"][0], "expected_seq": legal["seq"]},
            headers=seat,
            timeout=10,
        )
        assert played.status_code == 201, played.text
        moves += 1
    eventually(lambda: ("game_over", "ann@example.com") in mailbox.kinds(), "game over", logs)
    assert mailbox.kinds() == [
        ("invitation", "ann@example.com"),  # her first turn's mail too
        ("your_turn", "ann@example.com"),  # with the first round's scores in it
        ("game_over", "ann@example.com"),
    ]
    assert mailbox.messages[0]["Subject"].endswith("it is your turn")
    invitation = mailbox.messages[0].get_body(("plain",)).get_content()
    assert f"{base}/g/{game}/{ann}" in invitation
    # the shipped gunicorn config is the one in force: its access log hides seat tokens
    access = (logs / "gunicorn.log").read_text(errors="replace")
    assert "GET /static/site.css" in access and f"/g/{game}/" in access
    assert ann not in access
