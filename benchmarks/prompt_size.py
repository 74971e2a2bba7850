"""The size of the model's prompt on the recorded verl weeks and a synthetic 2,000-PR week, and
what the richer facts of issue 17 put in it: PRs with summary lines, config changes and
relations, and whether the data section had to be trimmed to its budget. Prints a Markdown
table; not a test (tests/core/analyst/test_facts*.py assert the bounds).

    .venv/bin/python benchmarks/prompt_size.py [--prs 2000]
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.digest import LABELS, WEEKS, synthetic_week  # noqa: E402
from service.core.analyst.facts import (  # noqa: E402
    DATA_BUDGET,
    PeriodFacts,
    build_facts,
    facts_json,
    facts_payload,
    trimmed_payload,
)
from service.core.digest import build_digest  # noqa: E402
from service.core.models import CollectedPeriod  # noqa: E402
from service.core.profile import load_profile  # noqa: E402
from service.pipeline.recorded import load_recorded  # noqa: E402
from service.render.prompt import prompt_chars, prompt_messages  # noqa: E402

NOW = datetime(2026, 12, 2, tzinfo=UTC)
CHARS_PER_TOKEN = 3.5


def facts_of(week: CollectedPeriod, language: str) -> PeriodFacts:
    digest = build_digest(week, load_profile("volcengine/verl"), language=language, now=NOW)
    return build_facts(digest, week.prs)


def row(label: str, week: CollectedPeriod) -> str:
    zh, en = facts_of(week, "zh"), facts_of(week, "en")
    full = zh.prs[:20]
    summaries = sum(bool(p.summary) for p in full)
    configs = sum(bool(p.config) for p in full)
    relations = sum(bool(p.relations) for p in zh.prs)
    trimmed = trimmed_payload(zh) != facts_payload(zh)
    size_zh = prompt_chars(prompt_messages(zh))
    size_en = prompt_chars(prompt_messages(en))
    return (
        f"| {label} | {len(week.prs)} | {len(facts_json(zh)):,} | {size_zh:,} | {size_en:,} | "
        f"~{size_zh / CHARS_PER_TOKEN / 1000:.1f}k | {summaries} | {configs} | {relations} | "
        f"{'yes' if trimmed else 'no'} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--prs", type=int, default=2000)
    args = parser.parse_args()
    print(f"data budget: {DATA_BUDGET:,} characters")
    print(
        "| week | PRs | data chars | prompt chars zh | prompt chars en | prompt tokens zh "
        "| top PRs with summary lines | with config changes | PRs with relations | trimmed |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for label in LABELS:
        print(row(label, load_recorded(WEEKS / f"{label}.json", NOW)))
    print(row(f"synthetic {args.prs}", synthetic_week(args.prs)))


if __name__ == "__main__":
    main()
