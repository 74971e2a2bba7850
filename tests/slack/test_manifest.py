"""The app manifest declares what the code uses: the command, the endpoint, the scopes."""

from __future__ import annotations

from pathlib import Path

from service.slack.app import DEFAULT_COMMAND

MANIFEST = Path(__file__).resolve().parents[2] / "deploy" / "slack-app-manifest.yml"


def _lines() -> list[str]:
    return [line.split("#")[0].rstrip() for line in MANIFEST.read_text().splitlines()]


def test_manifest_declares_the_command_and_the_endpoint() -> None:
    lines = _lines()
    assert f"    - command: {DEFAULT_COMMAND}" in lines
    urls = [
        line.split(": ", 1)[1]
        for line in lines
        if line.strip().startswith(("url:", "request_url:"))
    ]
    assert len(urls) == 2
    assert all(url.endswith("/slack/events") for url in urls)
    assert "    is_enabled: true" in lines


def test_manifest_has_every_scope_the_sender_needs() -> None:
    scopes = {line.strip()[2:] for line in _lines() if line.startswith("      - ")}
    assert {"commands", "chat:write", "channels:join", "channels:history"} <= scopes
