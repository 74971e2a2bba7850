"""The digest's inputs key names which optional helpers judge: the same week analysed where
google-re2 is missing (the built-in glob automaton runs) has another key, so a digest built
with the other engine is not reused silently."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from service.core.profile import load_profile
from service.observe.optional_helpers import helpers
from service.pipeline.jobs import inputs_key
from tests.conftest import load_week
from tests.processes import ROOT

pytestmark = pytest.mark.process

PROBE = """
import sys
{block}
from service.core.profile import load_profile
from service.pipeline.jobs import inputs_key
from tests.conftest import load_week
print(inputs_key(load_week("2026-W04"), load_profile("volcengine/verl"), "en", "", "-"))
"""
WITHOUT_RE2 = 'sys.modules["re2"] = None  # the `fast` extra is not installed'


def child_key(block: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", PROBE.format(block=block)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    return run.stdout.strip()


def test_the_inputs_key_changes_with_the_glob_engine() -> None:
    if not next(h for h in helpers() if h.extra == "fast").native:
        pytest.skip("google-re2 is not installed here: no engine to compare with")
    here = inputs_key(load_week("2026-W04"), load_profile("volcengine/verl"), "en", "", "-")
    assert child_key("pass") == here  # the same helpers: the same key
    assert child_key(WITHOUT_RE2) != here  # the built-in automaton: another key
