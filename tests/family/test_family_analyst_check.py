"""`verl-week analyst-check FILE` on a family digest the store holds: the answer names PRs as
the family's request asks (`#7347`, `verl-omni#373`), and each sentence is checked against the
PR it names, printed with its PRs named the same way (a family key is no number a reader
knows)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import build_parser
from service.settings import Settings
from tests.family.conftest import WEEK, family_service


def _item(text: str, prs: list[str]) -> dict[str, object]:
    return {"text": text, "prs": prs, "evidence": []}


ANSWER = {
    "headline": _item("verl-omni#373 makes pixel responses always uint8", ["verl-omni#373"]),
    "summary": [
        _item("verl-omni#373 makes pixel responses always uint8.", ["verl-omni#373"]),
        _item("#7347 enables non-blocking FSDP2 model transfers.", ["#7347"]),
        _item("#373 makes pixel responses always uint8.", ["#373"]),
    ],
    "key_changes": [],
    "pr_points": [],
    "trends": [],
    "recommendations": [],
    "review_notes": [],
}


def _check(settings: Settings, capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    parsed = build_parser().parse_args(list(args))
    assert parsed.run(parsed, settings) == 0
    return capsys.readouterr().out.splitlines()


def test_a_family_answer_is_checked_against_the_prs_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps(ANSWER), "utf-8")
    with family_service(tmp_path) as (_fakes, settings, _pipeline):
        _check(settings, capsys, "digest", "--week", WEEK, "--no-llm", "--format", "json")
        lines = _check(settings, capsys, "analyst-check", str(answer), "--week", WEEK)
    assert lines[0].startswith(f"verl-project {WEEK} (en): 4 sentences, 3 kept, 1 dropped")
    rows = [line.split(maxsplit=3) for line in lines[1:] if not line.startswith(" ")]
    by_place = {row[1]: row for row in rows}
    assert by_place["summary[0]"][:3] == ["kept", "summary[0]", "verl-omni#373"]
    assert by_place["summary[0]"][3].startswith("verl-omni#373 makes")
    assert by_place["summary[1]"][:3] == ["kept", "summary[1]", "#7347"]
    # verl's #373 is no PR of this week: the sentence goes, named as the model wrote it
    assert by_place["summary[2]"][0] == "dropped"
    assert "10000373" not in "\n".join(lines)
