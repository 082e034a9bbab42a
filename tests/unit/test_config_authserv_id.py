"""The authserv-id setting (PBEM_AUTHSERV_ID): empty by default, a host name when
set, and anything else refused at start with the setting named."""

from __future__ import annotations

import pytest

from pbem.config import ConfigError, load_settings


def authserv_id(tmp_path, **environ: str) -> str:
    return load_settings({"PBEM_INSTANCE_DIR": str(tmp_path), **environ}).authserv_id


def test_it_is_empty_by_default_and_a_host_name_when_set(tmp_path):
    assert authserv_id(tmp_path) == ""
    assert authserv_id(tmp_path, PBEM_AUTHSERV_ID="mx.example.org") == "mx.example.org"
    assert authserv_id(tmp_path, PBEM_AUTHSERV_ID=" MX3.messagingengine.com ") == (
        "MX3.messagingengine.com"
    )
    assert authserv_id(tmp_path, PBEM_AUTHSERV_ID="mx.müller.de") == "mx.müller.de"
    (tmp_path / "pbem.toml").write_text('authserv_id = "mail.example.org"\n')
    assert authserv_id(tmp_path) == "mail.example.org"


@pytest.mark.parametrize(
    "value",
    [
        "mx.example.org; dkim=pass",
        "mx example.org",
        "mx..example.org",
        ".example.org",
        "-mx.example.org",
        "mx.example.org\r\nBcc: x@example.com",
        '"mx.example.org"',
        "mx.example.org (ours)",
        "x" * 64 + ".example.org",
        ".".join(["a" * 60] * 5),
    ],
)
def test_anything_but_a_host_name_is_refused_naming_the_setting(tmp_path, value):
    with pytest.raises(ConfigError, match=r"^authserv_id: "):
        authserv_id(tmp_path, PBEM_AUTHSERV_ID=value)
