"""The JSON report serialised straight to UTF-8 bytes (issue 30: a 2,000-PR week's report is
tens of MB, and as a str it took 4 bytes a character once one emoji was in it): the bytes are
those the str path gave, invisible characters still written as their escapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli.common import emit
from service.render import escape
from service.render.report import render_json, render_json_bytes
from tests.commands.builders import real_digest

TRICKY = "fix\u202eevil\u200b \U0001f600 tag\U000e0041 soft\u00adhyphen \u4e2d\u6587"


def test_json_inert_bytes_is_json_inert_on_the_text() -> None:
    text = json.dumps({"t": TRICKY, "all": "".join(escape._invisible_chars())}, ensure_ascii=False)
    assert escape.json_inert_bytes(text.encode()) == escape.json_inert(text).encode()
    assert escape.json_inert_bytes(b"") == b""


def test_the_report_bytes_are_the_text_report_encoded() -> None:
    digest = real_digest("2026-W04")
    digest.prs[0].title = TRICKY
    data = render_json_bytes(digest)
    assert data == render_json(digest).encode()
    for hidden in ("\u202e", "\u200b", "\U000e0041", "\u00ad"):
        assert hidden.encode() not in data  # written as its escape
    assert "\U0001f600 tag".encode() in data  # visible text stays as it is
    assert json.loads(data)["prs"][0]["title"] == TRICKY  # the same once parsed


def test_emit_writes_bytes_as_they_are_after_the_text(
    capfdbinary: pytest.CaptureFixture[bytes],
) -> None:
    emit("first", None)
    emit('{\n  "a": "\u4e2d"\n}'.encode(), None)
    emit(b"ends with a newline\n", None)
    out = capfdbinary.readouterr().out
    assert out == 'first\n{\n  "a": "\u4e2d"\n}\nends with a newline\n'.encode()


def test_emit_writes_bytes_to_the_output_file(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    emit(render_json_bytes(real_digest("2026-W04")), target)
    assert target.read_bytes() == render_json(real_digest("2026-W04")).encode()
