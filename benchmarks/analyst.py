"""The analyst's costs: prompt size and checker time for the recorded verl weeks and a synthetic
2,000-PR week. Prints a Markdown table; not a test.

    .venv/bin/python benchmarks/analyst.py [--prs 2000] [--repeat 20]

For each week: the facts are built from the real digest, the prompt rendered (zh and en), and
a full answer checked: every section at its limit, written from the facts of the top PRs as a
well-behaved model would (32 sentences; no review notes, the recorded weeks have no review
data). For 2026-W04 the scripted good and invented answers of tests/data/llm are checked too.
Token figures are estimates (characters / 3.5, what mixed Chinese, English and JSON averages on
common tokenizers); the real count is in the `model narrative` log line of each week.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.digest import LABELS, WEEKS, synthetic_week  # noqa: E402
from service.core.analyst.checker import check_answer  # noqa: E402
from service.core.analyst.facts import PeriodFacts, build_facts, facts_json  # noqa: E402
from service.core.analyst.schema import LIMITS, Draft, parse_answer  # noqa: E402
from service.core.digest import build_digest  # noqa: E402
from service.core.models import CollectedPeriod  # noqa: E402
from service.core.profile import load_profile  # noqa: E402
from service.pipeline.recorded import load_recorded  # noqa: E402
from service.render.prompt import prompt_chars, prompt_messages  # noqa: E402

NOW = datetime(2026, 12, 2, tzinfo=UTC)
CHARS_PER_TOKEN = 3.5
ANSWERS = ROOT / "tests" / "data" / "llm"


def full_answer(facts: PeriodFacts) -> list[Draft]:
    """An answer at every section's limit, each sentence built from one top PR's facts (review
    notes only where a reviewer wrote something: the recorded weeks have no review data)."""
    top = facts.prs[: LIMITS["pr_points"]]
    reviewed = [pr for pr in facts.prs if pr.reviewed]  # review notes rest on reviewers' words
    drafts = [Draft("headline", f"#{top[0].number} 是本周重点", (top[0].number,))]
    for section, limit in LIMITS.items():
        if section == "headline":
            continue
        pool = reviewed if section == "review_notes" else top
        for i in range(limit if pool else 0):
            pr = pool[i % len(pool)]
            path = f"`{pr.paths[0]}`" if pr.paths else ""
            size = f"新增 {pr.additions} 行、删除 {pr.deletions} 行，涉及 {pr.files} 个文件"
            text = f"#{pr.number} {size} {path}。"
            theme = "主题" if section == "key_changes" else ""
            drafts.append(Draft(section, text, (pr.number,), theme))
    return drafts


def timed(drafts: list[Draft], facts: PeriodFacts, repeat: int) -> tuple[float, int]:
    """Median milliseconds of one check_answer (checker set-up included) and sentences kept."""
    runs = []
    kept = 0
    for _ in range(repeat):
        started = time.perf_counter()
        analysis = check_answer(drafts, facts, model="m", prompt_version="1")
        runs.append((time.perf_counter() - started) * 1000)
        kept = len(drafts) - len(analysis.dropped)
    return statistics.median(runs), kept


def row(label: str, week: CollectedPeriod, repeat: int) -> list[str]:
    started = time.perf_counter()
    digest = build_digest(week, load_profile("volcengine/verl"), language="zh", now=NOW)
    digest_s = time.perf_counter() - started
    started = time.perf_counter()
    facts = build_facts(digest, week.prs)
    facts_ms = (time.perf_counter() - started) * 1000
    zh = prompt_chars(prompt_messages(facts))
    en_facts = build_facts(digest.model_copy(update={"language": "en"}), week.prs)
    en = prompt_chars(prompt_messages(en_facts))
    drafts = full_answer(facts)
    check_ms, kept = timed(drafts, facts, repeat)
    return [
        label,
        str(len(week.prs)),
        f"{digest_s:.2f}",
        f"{facts_ms:.0f}",
        f"{len(facts_json(facts)):,}",
        f"{zh:,}",
        f"{en:,}",
        f"~{zh / CHARS_PER_TOKEN / 1000:.1f}k",
        f"{len(drafts)} ({kept} kept)",
        f"{check_ms:.1f}",
    ]


def scripted(repeat: int) -> list[list[str]]:
    week = load_recorded(WEEKS / "2026-W04.json", NOW)
    out = []
    for lang in ("zh", "en"):
        digest = build_digest(week, load_profile("volcengine/verl"), language=lang, now=NOW)
        facts = build_facts(digest, week.prs)
        for kind in ("good", "bad"):
            path = ANSWERS / f"2026-W04.{kind}.{lang}.json"
            if not path.exists():
                continue
            text = path.read_text(encoding="utf-8")
            drafts = parse_answer(text)
            ms, kept = timed(drafts, facts, repeat)
            tokens = f"~{len(text) / CHARS_PER_TOKEN / 1000:.1f}k"
            out.append(
                [f"2026-W04 {kind} {lang}", str(len(drafts)), str(kept), tokens, f"{ms:.1f}"]
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prs", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    head = [
        "week",
        "PRs",
        "digest s",
        "facts ms",
        "data chars",
        "prompt chars zh",
        "prompt chars en",
        "prompt tokens zh",
        "sentences",
        "check ms",
    ]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for label in LABELS:
        week = load_recorded(WEEKS / f"{label}.json", NOW)
        print("| " + " | ".join(row(label, week, args.repeat)) + " |")
    print("| " + " | ".join(row(f"synthetic {args.prs}", synthetic_week(args.prs), 3)) + " |")
    print()
    print("| answer | sentences | kept | answer tokens | check ms |")
    print("|---|---:|---:|---:|---:|")
    for line in scripted(args.repeat):
        print("| " + " | ".join(line) + " |")


if __name__ == "__main__":
    main()
