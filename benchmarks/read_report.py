"""The report a maintainer would read for a recorded week, written with a model answer of the
corpus (tests/data/llm/model_corpus): the real `verl-week digest` builds the week from the fake
GitHub serving the recorded files, and a fake model answers with the part's recorded answer, so
the report holds the sentences the checker kept (rules alone: the verification pass is off);
a family part's week is the family digest of its members, a period part's the digest of its
period (`digest --period A..B`).
For reading reports beside ../shared/reference/example-report.zh.txt; not a test. Never on a
held-out part: reading it is tuning to it.

    .venv/bin/python benchmarks/read_report.py seen5 2026-W20 zh [--format markdown|text|html]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.capture_request import _digest, serving  # noqa: E402
from tests.core.analyst.model_corpus import CORPUS, member_week, week_file  # noqa: E402


def report(part: str, week: str, lang: str, fmt: str) -> str:
    """The `fmt` report of `week` in `lang` with `part`'s recorded answer as the narrative."""
    meta = json.loads((CORPUS / part / "weeks.json").read_text("utf-8"))[week]
    previous = week_file(meta["previous"], meta["repo"]) if meta.get("previous") else None
    answer = (CORPUS / part / f"{week}.{lang}.answer.json").read_text("utf-8")
    # a period of several weeks: its first week's file, the others served beside it (and a
    # family's members' weeks of the period, those they merged anything in)
    first, *others = meta.get("weeks") or [week]
    members = tuple(
        recorded
        for repo in meta.get("members") or ()
        for each in meta.get("weeks") or [week]
        if (recorded := member_week(each, repo)) is not None
    )
    also = tuple(week_file(other, meta["repo"]) for other in others)
    with (
        serving(week_file(first, meta["repo"]), previous, lang, answer, members, also) as (
            env,
            repos,
            _,
        ),
        tempfile.TemporaryDirectory() as folder,
    ):
        out = Path(folder) / f"report.{fmt}"
        scope = [arg for repo in repos for arg in ("--repo", repo)] if members else []
        label = meta.get("period") or week
        _digest(env, label, lang, *scope, "--output", str(out), fmt=fmt)
        return out.read_text("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part")
    parser.add_argument("week")
    parser.add_argument("lang", choices=("zh", "en"))
    parser.add_argument("--format", default="markdown", choices=("markdown", "text", "html"))
    args = parser.parse_args()
    if args.part.startswith("heldout"):
        parser.error("a held-out part is read by its figures only (benchmarks/model_corpus.py)")
    print(report(args.part, args.week, args.lang, args.format))


if __name__ == "__main__":
    main()
