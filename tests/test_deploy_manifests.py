"""The shipped deploy files: the k8s Secret names every secret setting and ships no usable
credential; compose gives PostgreSQL only its own secret; no migrate Job to delete by hand.

Read as text (no YAML parser among the dependencies): the files are flat enough, and each
check names the line shape it relies on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import SecretStr

from service.errors import ConfigError
from service.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[1]
K8S = ROOT / "deploy" / "k8s"
# read with credentials in them, though not typed SecretStr
ALSO_SECRET = {"DATABASE_URL", "FEISHU_WEBHOOK_URL", "GITHUB_APP_ID", "FEISHU_APP_ID"}
STRING_DATA = re.compile(r'^  ([A-Z0-9_]+): "(.*)"$', re.MULTILINE)


def secret_settings() -> set[str]:
    return {
        name.upper()
        for name, field in Settings.model_fields.items()
        if SecretStr in getattr(field.annotation, "__args__", (field.annotation,))
    } | ALSO_SECRET


def test_k8s_secret_lists_every_secret_setting_and_ships_none() -> None:
    data = dict(STRING_DATA.findall((K8S / "secret.yaml").read_text()))
    assert "GITHUB_APP_PRIVATE_KEY" in secret_settings()
    assert secret_settings() <= set(data), secret_settings() - set(data)
    assert not any("change-me" in value.lower() for value in data.values())
    assert data["POSTGRES_PASSWORD"] == ""
    shipped = {k: v for k, v in data.items() if v}
    assert set(shipped) == {"DATABASE_URL"}  # a placeholder, refused by the settings check
    with pytest.raises(ConfigError, match="invalid setting DATABASE_URL"):
        load_settings(database_url=shipped["DATABASE_URL"])


def test_compose_gives_postgres_only_its_own_secret() -> None:
    text = (ROOT / "deploy" / "docker-compose.yml").read_text()
    postgres = text.split("\n  postgres:\n", 1)[1].split("\nvolumes:", 1)[0].split("\nsecrets:")[0]
    assert "env_file" not in postgres  # the app's .env (tokens, keys) stays with the app
    assert "POSTGRES_PASSWORD_FILE: /run/secrets/postgres_password" in postgres
    assert re.search(r"^    secrets:\n      - postgres_password$", postgres, re.MULTILINE)
    assert "file: ../secrets/postgres_password" in text


def test_pods_migrate_in_an_init_container_and_no_job_needs_deleting() -> None:
    kustomization = (K8S / "kustomization.yaml").read_text()
    resources = re.findall(r"^  - (\S+\.yaml)$", kustomization, re.MULTILINE)
    assert "web.yaml" in resources
    assert all("kind: Job" not in (K8S / name).read_text() for name in resources)
    for name in ("web.yaml", "scheduler.yaml"):
        text = (K8S / name).read_text()
        init = text.split("      initContainers:\n", 1)[1].split("      containers:\n", 1)[0]
        assert 'args: ["migrate"]' in init


def test_ingress_example_has_tls_and_keeps_metrics_inside() -> None:
    text = (K8S / "ingress.example.yaml").read_text()
    assert "secretName: verl-week-tls" in text
    paths = re.findall(r"- path: (\S+)", text)
    assert paths == ["/slack/events", "/feishu/events", "/reports"]


def test_systemd_does_not_restart_on_a_configuration_error() -> None:
    """A bad setting exits 2 with one line; restarting every 5 s forever would bury it."""
    unit = (ROOT / "deploy" / "systemd" / "verl-week.service").read_text(encoding="utf-8")
    assert re.search(r"^Restart=on-failure$", unit, re.MULTILINE)
    assert re.search(r"^RestartPreventExitStatus=2$", unit, re.MULTILINE)


def test_k8s_uses_the_local_image_and_no_placeholder_registry() -> None:
    """The default is the image `docker build -t verl-week:0.1.0` makes, as kind and minikube
    load it; an operator's registry is set by them (README: Kubernetes), never guessed."""
    kustomization = (K8S / "kustomization.yaml").read_text(encoding="utf-8")
    images = kustomization.split("\nimages:\n", 1)[1]
    assert re.search(r"^    newName: verl-week$", images, re.MULTILINE)
    assert re.search(r'^    newTag: "0\.1\.0"$', images, re.MULTILINE)
    for path in K8S.glob("*.yaml"):
        for image in re.findall(r"^\s*(?:image|newName):\s*(\S+)", path.read_text(), re.MULTILINE):
            assert "example" not in image, (path.name, image)
            assert "/" not in image, (path.name, image)  # no registry host in the manifests
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "kind load docker-image verl-week:0.1.0" in readme
    assert "docker build -f deploy/Dockerfile -t verl-week:0.1.0 ." in readme


def test_the_socket_mode_manifest_is_the_http_app_without_request_urls() -> None:
    """Socket Mode needs no hand edit: its own manifest, the same app otherwise."""
    deploy = ROOT / "deploy"
    http = (deploy / "slack-app-manifest.yml").read_text(encoding="utf-8")
    socket = (deploy / "slack-app-manifest.socket-mode.yml").read_text(encoding="utf-8")
    assert "url:" not in socket
    assert "example.com" not in socket
    assert re.search(r"^  socket_mode_enabled: true$", socket, re.MULTILINE)
    expected = re.sub(r"^ *(request_)?url: .*\n", "", http[http.index("_metadata:") :], flags=re.M)
    expected = expected.replace("socket_mode_enabled: false", "socket_mode_enabled: true")
    assert socket[socket.index("_metadata:") :] == expected
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(deploy/slack-app-manifest.socket-mode.yml)" in readme
