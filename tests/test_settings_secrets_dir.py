"""SECRETS_DIR: settings read from files named like them (Kubernetes / Docker mounted secrets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.errors import ConfigError
from service.settings import load_settings
from tests.processes import run_cli as run


def secrets(folder: Path, **values: str) -> Path:
    folder.mkdir()
    for name, value in values.items():
        (folder / name).write_text(value + "\n")  # as `kubectl create secret --from-file` keeps it
    return folder


def test_settings_read_from_mounted_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = secrets(
        tmp_path / "run-secrets",
        GITHUB_TOKEN="ghp_fromfile",
        SLACK_SIGNING_SECRET="s3cret",
        DATABASE_URL=f"sqlite:///{tmp_path}/from-file.db",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SECRETS_DIR", str(folder))
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "from-env")  # the environment wins over a file
    settings = load_settings()
    assert settings.github_token is not None
    assert settings.github_token.get_secret_value() == "ghp_fromfile"
    assert settings.slack_signing_secret is not None
    assert settings.slack_signing_secret.get_secret_value() == "from-env"
    assert settings.database_url == f"sqlite:///{tmp_path}/from-file.db"


@pytest.mark.process
def test_cli_reads_secrets_dir_and_refuses_a_missing_one(tmp_path: Path) -> None:
    folder = secrets(tmp_path / "secrets", DATABASE_URL=f"sqlite:///{tmp_path}/mounted.db")
    result = run(["digest", "--sample"], tmp_path, SECRETS_DIR=str(folder))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "mounted.db").is_file()
    missing = run(["digest", "--sample"], tmp_path, SECRETS_DIR=str(tmp_path / "nowhere"))
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines() == [
        f"verl-week: error: invalid setting SECRETS_DIR: {tmp_path / 'nowhere'} is not a directory"
    ]


def test_load_settings_names_the_missing_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRETS_DIR", "/no/such/dir")
    with pytest.raises(ConfigError, match="SECRETS_DIR: /no/such/dir is not a directory"):
        load_settings()
