"""`verl-week analyst-check FILE`, as a maintainer runs it: a real subprocess, the sample week or
a week the store holds, each sentence kept or dropped with its reasons; a bad file, a missing
file or a week never stored is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.openai import ANSWERS
from tests.processes import run_cli as run

pytestmark = pytest.mark.process

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def db(tmp_path: Path) -> dict[str, str]:
    return {"DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite"}


def verdicts(stdout: str) -> dict[str, list[str]]:
    """`where` → [outcome, reasons…] from the printed report."""
    found: dict[str, list[str]] = {}
    where = ""
    for line in stdout.splitlines()[1:]:
        if line.startswith(" ") and not line.strip().startswith("+ "):  # `+ …`: what grounded it
            found[where].append(line.strip().removeprefix("- "))
        elif line.startswith(" "):
            continue
        else:
            outcome, where = line.split()[:2]
            found[where] = [outcome]
    return found


def test_the_sample_week_shows_each_sentence_kept_or_dropped_with_reasons(tmp_path: Path) -> None:
    answer = ANSWERS / "2026-W04.bad.zh.json"
    result = run(["analyst-check", str(answer), "--sample"], tmp_path, **db(tmp_path))
    assert result.returncode == 0, result.stderr
    head = result.stdout.splitlines()[0]
    assert head == "volcengine/verl 2026-W04 (zh): 19 sentences, 6 kept, 13 dropped"
    found = verdicts(result.stdout)
    assert found["summary[0]"] == ["kept"]
    assert found["summary[1]"] == ["dropped", "pr_not_in_week: #9999"]
    assert found["summary[2]"] == ["dropped", "figure: 35%", "figure: 3 倍"]
    assert "instruction: 忽略" in found["pr_points[3]"]
    assert sum(v[0] == "kept" for v in found.values()) == 6


def test_a_stored_week_is_checked_in_the_language_asked(tmp_path: Path) -> None:
    env = db(tmp_path)
    stored = run(["digest", "--sample", "--lang", "en", "--format", "json"], tmp_path, **env)
    assert stored.returncode == 0, stored.stderr
    answer = ANSWERS / "2026-W04.good.en.json"
    args = ["analyst-check", str(answer), "--repo", "volcengine/verl", "--week", "2026-W04"]
    result = run([*args, "--lang", "en"], tmp_path, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("volcengine/verl 2026-W04 (en): ")
    found = verdicts(result.stdout)
    assert found["headline"] == ["kept"]
    assert found["key_changes[0]"] == ["kept"]
    # the English answer checked as Chinese: every sentence goes, for its language
    zh = verdicts(run([*args, "--lang", "zh"], tmp_path, **env).stdout)
    assert all(v[0] == "dropped" and "language: not zh" in v for v in zh.values())


def test_secrets_and_control_characters_in_the_file_are_not_printed(tmp_path: Path) -> None:
    answer = json.loads((ANSWERS / "2026-W04.good.en.json").read_text(encoding="utf-8"))
    answer["summary"][0]["text"] = f"Rotate {TOKEN} now \x1b[2J and visit evil.example."
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(answer), encoding="utf-8")
    result = run(["analyst-check", str(path), "--sample", "--lang", "en"], tmp_path, **db(tmp_path))
    assert result.returncode == 0, result.stderr
    assert TOKEN not in result.stdout
    assert "\x1b" not in result.stdout
    line = next(line for line in result.stdout.splitlines() if "Rotate" in line)
    assert line.startswith("dropped summary[0]")
    assert "ghp_****" in line


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("not json at all", "is not an answer of the model's schema: not JSON"),
        ('{"headline": {"text": "x", "prs": []}}', "is not an answer of the model's schema: "),
        ("[1, 2]", "the answer is not a JSON object"),
        (None, "cannot read"),
    ],
)
def test_a_bad_file_is_one_line_and_exit_2(
    tmp_path: Path, content: str | None, reason: str
) -> None:
    path = tmp_path / "answer.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result = run(["analyst-check", str(path), "--sample"], tmp_path, **db(tmp_path))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("verl-week: error: ")
    assert reason in lines[0]
    assert "Traceback" not in result.stderr


def test_a_week_never_stored_is_one_line_and_exit_2(tmp_path: Path) -> None:
    answer = ANSWERS / "2026-W04.good.zh.json"
    args = ["analyst-check", str(answer), "--repo", "volcengine/verl", "--week", "2026-W04"]
    result = run(args, tmp_path, **db(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "verl-week: error: no stored digest of volcengine/verl 2026-W04: run `verl-week digest "
        "--repo volcengine/verl --week 2026-W04` first, or use --sample"
    ]
