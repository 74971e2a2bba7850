"""`serve`, `backup` and `restore` explain themselves in `--help`, with an example to copy."""

from __future__ import annotations

import pytest

from service.cli import build_parser

EXPECTED = {
    "serve": ("Run the web app", "verl-week serve --no-scheduler"),
    "backup": ("online backup API", "verl-week backup /backups/verl-week-$(date +%F).db"),
    "restore": ("Stop the service first", "verl-week restore /backups/verl-week-2026-12-01.db"),
}


@pytest.mark.parametrize("verb", sorted(EXPECTED))
def test_help_explains_the_verb_and_shows_an_example(
    verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([verb, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    explains, example = EXPECTED[verb]
    assert explains in text
    assert "example" in text
    assert example in text
    assert max(len(line) for line in text.splitlines()) <= 100  # written to fit a terminal
