"""Stories benchmark: for every recorded verl week (built with the recorded week before it, as
the weekly job builds it with the stored previous week), the points of the short Markdown report
that are file listings (key changes and the top-PR table, zh), the stories that tie more than
one PR or reach an earlier week, and every relation found. Prints Markdown; not a test
(tests/core/test_stories.py asserts the exact stories and relations).

    .venv/bin/python benchmarks/stories.py              # the figures
    .venv/bin/python benchmarks/stories.py --write DIR  # also each week's zh and en report

Run against an older checkout (PYTHONPATH=that checkout) it prints the file-listing counts of
that code (it has no stories or relations to print).
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service.core.digest import build_digest  # noqa: E402
from service.core.models import Digest  # noqa: E402
from service.core.profile import load_profile  # noqa: E402
from service.pipeline.recorded import load_recorded  # noqa: E402
from service.render.report import render_markdown  # noqa: E402

WEEKS = ROOT / "tests" / "data" / "weeks"
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
PREVIOUS = {"2025-W47": None, "2025-W48": "2025-W47", "2026-W03": None, "2026-W04": "2026-W03"}
# a point that only lists files, as the zh catalog words it (narrative.files.*), at the start
# of a key change's point or of a table cell
_FILES_POINT = re.compile(r"(?:[)）]：|\| )(?:新增|改动|删除|改动集中在) `")
_SECTION = re.compile(r"^## ", re.MULTILINE)
KEY_CHANGES, TOP_PRS = 2, 5


def build(week: str) -> Digest:
    profile = load_profile("volcengine/verl")
    collected = load_recorded(WEEKS / f"{week}.json", NOW)
    before = PREVIOUS[week]
    earlier = load_recorded(WEEKS / f"{before}.json", NOW).prs if before else None
    return build_digest(collected, profile, language="zh", now=NOW, earlier=earlier)


def file_listings(markdown: str) -> tuple[int, int]:
    """File-listing points in the key changes and in the top-PR table."""
    sections = _SECTION.split(markdown)
    return (
        len(_FILES_POINT.findall(sections[KEY_CHANGES])),
        len(_FILES_POINT.findall(sections[TOP_PRS])),
    )


def _story_line(digest: Digest, index: int) -> str:
    story = digest.stories[index]
    prs = ", ".join(f"#{n}" for n in story.prs)
    earlier = ", ".join(f"#{n}" for n in story.earlier)
    return f"{story.kind}: {prs}" + (f" (earlier weeks: {earlier})" if earlier else "")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", type=Path, default=None, help="write the reports here")
    args = parser.parse_args()
    print("| week | PRs | file-listing points (key changes / top table) | stories | relations |")
    print("|---|---:|---:|---:|---:|")
    details = []
    for week in PREVIOUS:
        digest = build(week)
        markdown = render_markdown(digest, "zh")
        keys, table = file_listings(markdown)
        stories = getattr(digest, "stories", [])
        tied = [i for i, s in enumerate(stories) if len(s.prs) > 1 or s.earlier]
        relations = getattr(digest, "relations", [])
        print(f"| {week} | {len(digest.prs)} | {keys} / {table} | {len(tied)} | {len(relations)} |")
        details.append((week, digest, tied, relations))
        if args.write:
            args.write.mkdir(parents=True, exist_ok=True)
            (args.write / f"{week}.zh.md").write_text(markdown, encoding="utf-8")
            en = render_markdown(digest, "en")
            (args.write / f"{week}.en.md").write_text(en, encoding="utf-8")
    for week, digest, tied, relations in details:
        print(f"\n{week}: stories of more than one PR or reaching an earlier week")
        for index in tied:
            print(f"- {_story_line(digest, index)}")
        print(f"{week}: relations (later → earlier, kind, the earlier PR's week when not this)")
        for r in relations:
            week_note = f" ({r.week})" if r.week else ""
            lines = f", {r.lines} lines" if r.lines else ""
            print(f"- #{r.pr} → #{r.other}{week_note}: {r.kind.value}{lines}")


if __name__ == "__main__":
    main()
