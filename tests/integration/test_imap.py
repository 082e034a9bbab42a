"""The IMAP poller against a real IMAP server (Dovecot, started here): replies in
the mailbox are acted on once, even with two pollers at once, and each is marked
seen only after it was handled."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from imap_tools import AND, MailBoxUnencrypted, MailMessageFlags

from pbem.mail.imap import poll

from support import Table

DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"
CONFIG = """
base_dir = {folder}/run
state_dir = {folder}/state
log_path = {folder}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
mail_location = maildir:{folder}/home/%u/Maildir
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {folder}/users
}}
userdb {{
  driver = static
  args = uid=dovecot gid=dovecot home={folder}/home/%u
}}
service imap-login {{
  inet_listener imap {{
    port = {port}
  }}
}}
"""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def imap():
    """A Dovecot IMAP server with one mailbox: (port, user, password). Its folder is
    outside pytest's (which only root may enter): Dovecot's processes run as the
    dovecot user."""
    if not os.path.exists(DOVECOT):
        if os.environ.get("CI"):
            pytest.fail("CI must run the IMAP tests: install dovecot-imapd")
        pytest.skip("the IMAP tests need Dovecot (.ci/run installs dovecot-imapd)")
    folder = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    folder.chmod(0o755)
    (folder / "home").mkdir()
    port = _port()
    (folder / "dovecot.conf").write_text(CONFIG.format(folder=folder, port=port))
    (folder / "users").write_text("play:{PLAIN}imap-secret\n")
    shutil.chown(folder / "home", "dovecot", "dovecot")
    server = subprocess.Popen(
        [DOVECOT, "-c", str(folder / "dovecot.conf"), "-F"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120  # until it listens (slowly on a loaded machine)
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        assert server.poll() is None, "dovecot ended before it listened"
        assert time.monotonic() < deadline, "dovecot did not listen"
        time.sleep(0.05)
    yield port, "play", "imap-secret"
    server.terminate()
    server.wait(timeout=10)
    shutil.rmtree(folder, ignore_errors=True)


def mailbox(port: int, user: str, password: str) -> MailBoxUnencrypted:
    return MailBoxUnencrypted("127.0.0.1", port).login(user, password)


def test_two_pollers_act_once_per_mail_and_mark_each_seen(web, imap):
    port, user, password = imap
    table = Table(web[1])
    with mailbox(port, user, password) as box:
        box.append(table.mail("gmail_top_post.eml", "money L"), "INBOX")
        box.append(table.mail("out_of_office.eml", "whatever"), "INBOX")
    counts: list[int] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def poller() -> None:
        barrier.wait()
        try:
            counts.append(poll(table.inbound, "127.0.0.1", port, user, password, ssl=False))
        except BaseException as error:  # a poller that dies fails the test
            errors.append(error)

    threads = [threading.Thread(target=poller) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert table.seq() == 2  # the move was played once
    assert [a.payload["status"] for a in table.answers()] == ["accepted"]
    with mailbox(port, user, password) as box:
        assert list(box.fetch(AND(seen=False))) == []
    assert sum(counts) >= 2  # between them, both mails were handled


def test_another_session_changing_flags_between_search_and_fetch_confuses_nothing(
    web, imap, monkeypatch
):
    # Another poller marking a mail seen reaches this session as an untagged FETCH
    # answer inside its next fetch; the poller must not take that for a mail.
    port, user, password = imap
    table = Table(web[1])
    with mailbox(port, user, password) as box:
        box.append(table.mail("gmail_top_post.eml", "money L"), "INBOX")
        box.append(table.mail("out_of_office.eml", "whatever"), "INBOX")
    search = MailBoxUnencrypted.uids

    def search_then_flag_elsewhere(self, *args, **kwargs):
        found = search(self, *args, **kwargs)
        with mailbox(port, user, password) as other:
            other.flag(found, MailMessageFlags.FLAGGED, True)
        return found

    monkeypatch.setattr(MailBoxUnencrypted, "uids", search_then_flag_elsewhere)
    assert poll(table.inbound, "127.0.0.1", port, user, password, ssl=False) == 2
    assert table.seq() == 2
    assert [a.payload["status"] for a in table.answers()] == ["accepted"]
    monkeypatch.undo()
    with mailbox(port, user, password) as box:
        assert list(box.fetch(AND(seen=False))) == []


def test_pbem_imap_poll_once(web, imap):
    port, user, password = imap
    table = Table(web[1])
    with mailbox(port, user, password) as box:
        box.append(table.mail("outlook.eml", "build L1 at 0,2"), "INBOX")
    settings = web[1].settings
    env = {
        "PBEM_DATABASE_URL": settings.database_url,
        "PBEM_SECRET_KEY": "web-secret",
        "PBEM_INSTANCE_DIR": str(settings.instance_dir),
        "PBEM_IMAP_PASSWORD": password,
        "PATH": "",
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pbem.cli",
            "imap-poll",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--user",
            user,
            "--no-ssl",
            "--once",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "handled 1 mails\n"
    assert table.parts.service.history(table.game)[-1].text == (
        "Ann played Burger Bar (Y01) from L1 at 0,2;"
        " a customer wanting food moves from the Main Entrance to Burger Bar (Y01)"
    )
