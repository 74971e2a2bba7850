"""Report length benchmark: for every recorded verl week, the Markdown report's characters
(link targets not counted), the most mentions of one PR, and the risk items the report lists,
in zh and en, against the budget of issue 10 (zh: 3,000 + 130 characters per PR, a PR named at
most 5 times). Prints a Markdown table; not a test (tests/render/test_budget.py asserts the
budget).

    .venv/bin/python benchmarks/report_length.py
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service.core.digest import build_digest  # noqa: E402
from service.core.profile import load_profile  # noqa: E402
from service.pipeline.recorded import load_recorded  # noqa: E402
from service.render.report import render_html, render_markdown  # noqa: E402

WEEKS = ROOT / "tests" / "data" / "weeks"
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
# each recorded week with the recorded week before it (for trends, reverts and follow-ups)
PREVIOUS = {"2025-W47": None, "2025-W48": "2025-W47", "2026-W03": None, "2026-W04": "2026-W03"}
_LINK_TARGET = re.compile(r"(\[[^\]]*\])\([^)\s]*\)")
_PR = re.compile(r"#(\d+)\b")
# a risk item of the report: `1. **高 · …**` (before issue 10: `### 1. [高] …`)
_RISK_ITEM = re.compile(r"^(?:\d+\. \*\*|### \d+\. \[)", re.MULTILINE)
BASE_CHARS = 3000
CHARS_PER_PR = 130
# English spells the same report in about a quarter more characters: its budget allows 30 % more
EN_FACTOR = 1.3
RISK_SECTION = 4


def visible(markdown: str) -> str:
    """The Markdown with every `[label](target)` counted as `[label]`."""
    return _LINK_TARGET.sub(r"\1", markdown)


def mentions(markdown: str) -> Counter[int]:
    return Counter(int(n) for n in _PR.findall(visible(markdown)))


def risk_items(markdown: str) -> int:
    """Items of the risk section (the fourth `## ` section)."""
    section = re.split(r"^## ", markdown, flags=re.MULTILINE)[RISK_SECTION]
    return len(_RISK_ITEM.findall(section))


def main() -> None:
    profile = load_profile("volcengine/verl")
    print("| week | PRs | lang | characters | budget | most mentions (PR) | risk items | HTML KB |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for week, before in PREVIOUS.items():
        collected = load_recorded(WEEKS / f"{week}.json", NOW)
        earlier = load_recorded(WEEKS / f"{before}.json", NOW) if before else None
        for lang in ("zh", "en"):
            previous = build_digest(earlier, profile, language=lang, now=NOW) if earlier else None
            digest = build_digest(
                collected,
                profile,
                language=lang,
                now=NOW,
                previous=previous,
                earlier=earlier.prs if earlier else None,
            )
            text = render_markdown(digest)
            number, most = mentions(text).most_common(1)[0]
            budget = BASE_CHARS + CHARS_PER_PR * len(digest.prs)
            budget = int(budget * EN_FACTOR) if lang == "en" else budget
            html_kb = len(render_html(digest).encode()) / 1024
            print(
                f"| {week} | {len(digest.prs)} | {lang} | {len(visible(text)):,} | {budget:,} "
                f"| {most} (#{number}) | {risk_items(text)} | {html_kb:.0f} |"
            )


if __name__ == "__main__":
    main()
