"""Compiled templates are kept between processes in a folder private to the user, keyed by what
changes the compiled code; a cache that cannot be had or written is no error."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import jinja2
import pytest

from service.core.models import Digest
from service.render.environment import (
    CompiledTemplates,
    build_environment,
    is_autoescaped,
    template_cache_dir,
)
from service.render.report import TEMPLATES, render_html
from service.render.report import _context as report_context
from service.render.speaker import HTML
from tests.render.test_report import real_digest

NOBODY = 65534


def _bucket(env: jinja2.Environment, name: str) -> jinja2.bccache.Bucket:
    cache = env.bytecode_cache
    assert isinstance(cache, CompiledTemplates)
    assert isinstance(env.loader, jinja2.FileSystemLoader)
    source, filename, _ = env.loader.get_source(env, name)
    return cache.get_bucket(env, name, filename, source)


def test_a_compiled_template_is_read_back_by_the_next_process(tmp_path: Path) -> None:
    name = TEMPLATES["html"]
    first = build_environment(tmp_path)
    assert _bucket(first, name).code is None
    digest = real_digest("2026-W04", "en")
    page = render_html(digest)
    first.get_template(name)
    assert any(tmp_path.iterdir())
    again = build_environment(tmp_path)
    assert _bucket(again, name).code is not None  # compiled code found: nothing to compile
    assert again.get_template(name).render(**_context(digest)) == page


def _context(digest: Digest) -> dict[str, Any]:
    return report_context(digest, "en", HTML)


def test_the_key_says_whether_the_template_autoescapes(tmp_path: Path) -> None:
    cache = CompiledTemplates(str(tmp_path))
    plain = jinja2.FileSystemBytecodeCache(str(tmp_path))
    for name in ("web/reports.html.j2", "report/report.md.j2"):
        assert cache.get_cache_key(name, "f") != plain.get_cache_key(name, "f")
    assert is_autoescaped("web/reports.html.j2") != is_autoescaped("report/report.md.j2")


def test_the_cache_folder_is_private_to_the_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    folder = template_cache_dir()
    assert folder == tmp_path / ".cache" / "verl-week" / "templates"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


@pytest.mark.parametrize("problem", ["world-writable", "someone else's", "home is a file"])
def test_no_cache_rather_than_an_unsafe_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, problem: str
) -> None:
    folder = tmp_path / ".cache" / "verl-week" / "templates"
    folder.mkdir(parents=True)
    if problem == "world-writable":
        folder.chmod(0o777)
    elif problem == "someone else's":
        if os.getuid() != 0:
            pytest.skip("only root can give a folder away")
        folder.chmod(0o700)
        os.chown(folder, NOBODY, NOBODY)
    else:
        (tmp_path / "home").write_text("")
        tmp_path = tmp_path / "home"
    monkeypatch.setenv("HOME", str(tmp_path))
    assert template_cache_dir() is None


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    env = build_environment(tmp_path / "gone")  # never made: every write fails
    page = env.get_template(TEMPLATES["html"]).render(**_context(real_digest("2026-W04", "en")))
    assert page == render_html(real_digest("2026-W04", "en"))
    assert not (tmp_path / "gone").exists()
