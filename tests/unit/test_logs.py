"""The logs' foundation: a line is text or one JSON object with the keys promised, it
carries the context of the work in hand, and no secret is ever in it (a seat token
in an address, a password in a URL, a reply address's signature, a bearer key),
whether in the message or in the traceback."""

from __future__ import annotations

import io
import json
import logging
import threading

import pytest

from pbem import logs
from pbem.config import ConfigError, load_settings

TOKEN = "Zm9vYmFyYmF6cXV4MTIzNDU2"  # the shape of a seat token (24 URL-safe characters)
REPLY = "play+abcdefghijklmnop.2.17.abcdefghijklmnopqrstuvwx@mall.example"


def _record(message: str, *args: object, exc: bool = False) -> logging.LogRecord:
    exc_info = None
    if exc:
        try:
            raise RuntimeError(f"while opening http://pbem.test/g/abcdefghijklmnop/{TOKEN}")
        except RuntimeError:
            import sys

            exc_info = sys.exc_info()
    return logging.LogRecord("pbem.test", logging.ERROR, __file__, 1, message, args, exc_info)


def _written(log_format: str, record: logging.LogRecord) -> str:
    stream = io.StringIO()
    handler = logs.handler(log_format, stream)
    handler.handle(record)
    return stream.getvalue()


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        (f"GET /g/abcdefghijklmnop/{TOKEN} 200", "GET /g/abcdefghijklmnop/[hidden] 200"),
        (f"http://x/g/abcdefghijklmnop/{TOKEN}?a=1", "http://x/g/abcdefghijklmnop/[hidden]?a=1"),
        ("/g/abcdefghijklmnop/watch/chat", "/g/abcdefghijklmnop/watch/chat"),  # nothing secret
        (f"/my-games/sign-in/{TOKEN}", "/my-games/sign-in/[hidden]"),
        (f"/history?at=3&token={TOKEN}&x=1", "/history?at=3&token=[hidden]&x=1"),
        (f"reply to {REPLY} went", "reply to play+abcdefghijklmnop.2…@mall.example went"),
        (REPLY.upper(), "PLAY+ABCDEFGHIJKLMNOP.2…@MALL.EXAMPLE"),
        ("postgresql://pbem:s3cret@db/pbem", "postgresql://pbem:[hidden]@db/pbem"),
        ("redis://:s3cret@cache:6379/0", "redis://:[hidden]@cache:6379/0"),
        ("Authorization: Bearer abc.def-123", "Authorization: Bearer [hidden]"),
    ],
)
def test_every_secret_of_a_line_is_hidden(said, shown):
    # the module's own patterns (a web app made earlier in this process adds its
    # routes' redactor, which may hide more)
    assert logs.redact(said, added=False) == shown


def test_a_json_line_has_the_keys_promised_and_no_secret_in_its_traceback():
    record = _record("mail to %s failed", REPLY, exc=True)
    with logs.context(request_id="r-1", game_id="abcdefghijklmnop", seat=2, seq=17):
        line = _written("json", record)
    assert line.count("\n") == 1  # one line, whatever the traceback
    found = json.loads(line)
    assert found["level"] == "ERROR" and found["logger"] == "pbem.test"
    assert found["time"].endswith("Z") and found["time"][:2] == "20"
    assert found["message"] == "mail to play+abcdefghijklmnop.2…@mall.example failed"
    assert (found["request_id"], found["game_id"], found["seat"], found["seq"]) == (
        "r-1",
        "abcdefghijklmnop",
        2,
        17,
    )
    assert "RuntimeError" in found["exc"] and "/g/abcdefghijklmnop/[hidden]" in found["exc"]
    assert TOKEN not in line and "abcdefghijklmnopqrstuvwx" not in line


def test_a_text_line_has_time_level_logger_context_and_message():
    with logs.context(game_id="abcdefghijklmnop", seat=1):
        line = _written("text", _record("moved %d", 3))
    time, level, logger, context, message = line.split(" ", 4)
    assert time.endswith("Z") and level == "ERROR" and logger == "pbem.test"
    assert context == "[game_id=abcdefghijklmnop" and message == "seat=1] moved 3\n"


def test_the_context_is_the_thread_s_own_and_comes_back_after():
    seen: list[dict] = []
    with logs.context(request_id="outer"):
        with logs.context(game_id="g"):
            assert logs.current() == {"request_id": "outer", "game_id": "g"}
        thread = threading.Thread(target=lambda: seen.append(logs.current()))
        thread.start()
        thread.join()
        assert logs.current() == {"request_id": "outer"}
    assert logs.current() == {} and seen == [{}]
    with pytest.raises(ValueError, match="password"):
        logs.bind(password="x")


def test_configure_sets_the_root_logger_once():
    root = logging.getLogger()
    before = list(root.handlers), root.level
    try:
        first = logs.configure("test", "json", "WARNING")
        assert logs.configure("test", "json", "WARNING") is first
        assert [h for h in root.handlers if h.get_name() == "pbem"] == [first]
        assert root.level == logging.WARNING and isinstance(first.formatter, logs.JsonLines)
        second = logs.configure("test", "text", "INFO")
        assert [h for h in root.handlers if h.get_name() == "pbem"] == [second]
    finally:
        for handler in root.handlers[:]:
            if handler.get_name() == "pbem":
                root.removeHandler(handler)
        root.handlers[:0] = [h for h in before[0] if h not in root.handlers]
        root.setLevel(before[1])


@pytest.mark.parametrize(
    ("variable", "value"),
    [("PBEM_LOG_FORMAT", "xml"), ("PBEM_LOG_LEVEL", "LOUD"), ("PBEM_HEARTBEAT_SECONDS", "0")],
)
def test_a_bad_log_setting_is_refused_by_name(variable, value):
    with pytest.raises(ConfigError, match=variable.removeprefix("PBEM_").lower()):
        load_settings({variable: value})


def test_the_log_settings_are_read():
    settings = load_settings({"PBEM_LOG_FORMAT": " JSON ", "PBEM_LOG_LEVEL": "debug"})
    assert (settings.log_format, settings.log_level) == ("json", "DEBUG")
    assert load_settings({}).log_format == "text"


def test_at_debug_no_line_names_a_push_endpoint_s_path():
    """urllib3 logs the path of each request at DEBUG; a push endpoint's path is the
    browser's secret, so the library stays quiet whatever the level."""
    import http.server

    import requests

    class Quiet(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.send_response(201)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    root = logging.getLogger()
    before = list(root.handlers), root.level
    quiet_before = logging.getLogger("urllib3").level
    said = io.StringIO()
    try:
        made = logs.configure("test", "text", "DEBUG")
        made.setStream(said)
        secret = "fcm-send-" + "Zq7" * 10
        answer = requests.post(f"http://127.0.0.1:{server.server_port}/wp/{secret}", timeout=10)
        assert answer.status_code == 201
        logging.getLogger("pbem.test").debug("the request was sent")  # DEBUG lines do show
    finally:
        server.shutdown()
        for handler in root.handlers[:]:
            if handler.get_name() == "pbem":
                root.removeHandler(handler)
        root.handlers[:0] = [h for h in before[0] if h not in root.handlers]
        root.setLevel(before[1])
        logging.getLogger("urllib3").setLevel(quiet_before)
    assert "the request was sent" in said.getvalue()
    assert secret not in said.getvalue() and "/wp/" not in said.getvalue()
