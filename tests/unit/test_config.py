"""Settings: config/defaults.toml, then the instance file, then PBEM_* variables; no
secret has a usable default outside dev mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.config import DEFAULTS, DEV_SECRET_KEY, ConfigError, load_settings


def test_defaults_come_from_the_config_folder(tmp_path):
    settings = load_settings({"PBEM_INSTANCE_DIR": str(tmp_path)})
    assert settings.database_url == f"sqlite:///{tmp_path}/pbem.sqlite3"
    assert settings.sqlite_synchronous == "FULL"
    assert settings.snapshot_every == 50
    assert settings.dev is False and settings.admin_key == ""


def test_the_instance_file_overrides_defaults_and_the_environment_overrides_both(tmp_path):
    (tmp_path / "pbem.toml").write_text('base_url = "https://mall.example"\nsnapshot_every = 20\n')
    settings = load_settings(
        {"PBEM_INSTANCE_DIR": str(tmp_path), "PBEM_SNAPSHOT_EVERY": "7", "PBEM_DEV": "yes"}
    )
    assert settings.base_url == "https://mall.example"
    assert settings.snapshot_every == 7
    assert settings.dev is True


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"PBEM_DEV": "maybe"}, "dev: 'maybe' is not a yes or no"),
        ({"PBEM_SNAPSHOT_EVERY": "often"}, "snapshot_every: 'often' is not a whole number"),
        ({"PBEM_INSTANCE_FILE": "/nowhere/pbem.toml"}, "does not exist"),
        ({"PBEM_LIVE_POLL_SECONDS": "-1"}, "live_poll_seconds: 0 .* to 3600 seconds"),
        ({"PBEM_LIVE_POLL_SECONDS": "3601"}, "live_poll_seconds: 0 .* to 3600 seconds"),
        ({"PBEM_LIVE_POLL_SECONDS": "soon"}, "live_poll_seconds: 'soon' is not a whole number"),
        ({"PBEM_SITE_NAME": ""}, "site_name: 1 to 60 printable characters, not ''"),
        ({"PBEM_SITE_NAME": "   "}, "site_name: 1 to 60 printable"),
        ({"PBEM_SITE_NAME": "Games\r\nBcc: x@example.com"}, "site_name: 1 to 60 printable"),
        ({"PBEM_SITE_NAME": "Games\tby mail"}, "site_name: 1 to 60 printable"),
        ({"PBEM_SITE_NAME": "Games\u2028by mail"}, "site_name: 1 to 60 printable"),
        ({"PBEM_SITE_NAME": "x" * 61}, "site_name: 1 to 60 printable"),
    ],
)
def test_a_malformed_setting_is_named(environ, message, tmp_path):
    with pytest.raises(ConfigError, match=message):
        load_settings({"PBEM_INSTANCE_DIR": str(tmp_path), **environ})


def test_the_site_name_is_a_setting_in_any_script(tmp_path):
    def site_name(**environ: str) -> str:
        return load_settings({"PBEM_INSTANCE_DIR": str(tmp_path), **environ}).site_name

    assert site_name() == "Mall by mail"
    assert site_name(PBEM_SITE_NAME="Spieleabend per Post") == "Spieleabend per Post"
    assert site_name(PBEM_SITE_NAME="x" * 60) == "x" * 60


def test_an_unknown_setting_in_the_instance_file_is_refused(tmp_path):
    (tmp_path / "pbem.toml").write_text('databse_url = "sqlite://"\n')
    with pytest.raises(ConfigError, match="unknown settings: databse_url"):
        load_settings({"PBEM_INSTANCE_DIR": str(tmp_path)})


def test_the_secret_key_has_a_default_only_in_dev_mode(tmp_path):
    base = {"PBEM_INSTANCE_DIR": str(tmp_path)}
    with pytest.raises(ConfigError, match="PBEM_SECRET_KEY must be set"):
        load_settings(base).signing_key()
    assert load_settings({**base, "PBEM_DEV": "1"}).signing_key() == DEV_SECRET_KEY.encode()
    assert load_settings({**base, "PBEM_SECRET_KEY": "s3"}).signing_key() == b"s3"


def test_the_instance_folder_is_the_current_directorys_unless_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = load_settings({})
    assert settings.instance_dir == tmp_path / "instance"
    assert settings.database_url == f"sqlite:///{tmp_path}/instance/pbem.sqlite3"
    named = tmp_path / "elsewhere"
    assert load_settings({"PBEM_INSTANCE_DIR": str(named)}).instance_dir == named


def test_the_instance_file_is_read_from_the_current_directorys_instance(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "instance").mkdir()
    (tmp_path / "instance" / "pbem.toml").write_text('mail_domain = "mall.example"\n')
    assert load_settings({}).mail_domain == "mall.example"


def test_a_checkout_reads_its_data_from_the_top_level_folders():
    from pbem import resources

    checkout = Path(__file__).resolve().parents[2]
    assert checkout / "templates" == resources.TEMPLATES
    assert checkout / "static" == resources.STATIC
    assert checkout / "migrations" == resources.MIGRATIONS
    assert checkout / "config" == resources.CONFIG
    assert checkout / "config" / "defaults.toml" == DEFAULTS
