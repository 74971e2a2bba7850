"""`verl-week ask <chat command>`: every verb of the chat's table on the command line, answered
as the chat answers it (as text), with no line of the CLI per verb: `ask help` lists the
registry's verbs, a new verb (`authors`) answers, bad text and an admin's verb are one line and
exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.commands.registry import verb_names
from tests.processes import run_cli as run

pytestmark = pytest.mark.process


def test_help_lists_every_verb_of_the_registry(tmp_path: Path) -> None:
    done = run(["ask", "help", "--sample", "--lang", "en"], tmp_path)
    assert done.returncode == 0, done.stderr
    listed = [
        line.split("`")[1].split()[0] for line in done.stdout.splitlines() if line.startswith("- `")
    ]
    assert listed[: len(verb_names())] == verb_names()


def test_authors_of_the_sample_week(tmp_path: Path) -> None:
    done = run(["ask", "authors", "--sample", "--lang", "en"], tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "authors of the" in lines[0]
    assert lines[2].startswith("1. ")
    counts = [int(line.rsplit("— ", 1)[1].split()[0]) for line in lines[2:] if line[:1].isdigit()]
    assert counts == sorted(counts, reverse=True)
    assert counts[0] > 1


def test_a_filtered_question_says_its_filter(tmp_path: Path) -> None:
    done = run(["ask", "top", "3", "module:rollout", "--sample", "--lang", "en"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "module:rollout" in done.stdout


@pytest.mark.parametrize(
    ("text", "said"),
    [("frobnicate", "frobnicate"), ("regenerate", "admins"), ("top 99", "99")],
)
def test_bad_text_or_an_admin_verb_is_one_line_and_exit_2(
    tmp_path: Path, text: str, said: str
) -> None:
    done = run(["ask", *text.split(), "--sample", "--lang", "en"], tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert said in line
