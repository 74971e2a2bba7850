"""`verl-week analyst-check` on a long answer (issue 26): the time `audit_answer` takes on an
answer of N sentences (the recorded good answer of 2026-W04, each section's items repeated
until the answer holds N), and how it grows with N. Prints a Markdown table; not a test.

    .venv/bin/python benchmarks/analyst_check_scale.py [--sentences 500 1000 2000 4000]

The CLI refuses an answer of more than MAX_SENTENCES items (analyst_check.py); this script calls
the checker directly, to show its cost is linear in the answer.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.analyst import NOW  # noqa: E402
from benchmarks.digest import WEEKS  # noqa: E402
from service.core.analyst.audit import audit_answer  # noqa: E402
from service.core.analyst.facts import build_facts  # noqa: E402
from service.core.analyst.schema import SECTIONS, Draft, parse_answer  # noqa: E402
from service.core.digest import build_digest  # noqa: E402
from service.core.profile import load_profile  # noqa: E402
from service.pipeline.recorded import load_recorded  # noqa: E402

ANSWER = ROOT / "tests" / "data" / "llm" / "2026-W04.good.zh.json"


def long_answer(sentences: int) -> list[Draft]:
    """The good answer's drafts with each list section's items cycled to reach `sentences` in
    all (built as drafts: such an answer is larger than parse_answer takes)."""
    drafts = parse_answer(ANSWER.read_text(encoding="utf-8"))
    sections = [s for s in SECTIONS[1:] if any(d.section == s for d in drafts)]
    each = (sentences - 1) // len(sections)
    out = [drafts[0]]
    for section in sections:
        items = [d for d in drafts if d.section == section]
        out += [items[i % len(items)] for i in range(each)]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sentences", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    args = parser.parse_args()
    week = load_recorded(WEEKS / "2026-W04.json", NOW)
    digest = build_digest(week, load_profile(week.repo), language="zh", now=NOW)
    facts = build_facts(digest, week.prs)
    print("| sentences | kept | dropped | seconds | ms per sentence |")
    print("|---|---|---|---|---|")
    for n in args.sentences:
        drafts = long_answer(n)
        started = time.perf_counter()
        verdicts = audit_answer(drafts, facts)
        seconds = time.perf_counter() - started
        kept = sum(v.kept for v in verdicts)
        per = 1000 * seconds / len(drafts)
        print(f"| {len(drafts)} | {kept} | {len(drafts) - kept} | {seconds:.2f} | {per:.2f} |")


if __name__ == "__main__":
    main()
