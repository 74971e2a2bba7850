"""Analysis + rendering benchmark: build_digest and every renderer on one real verl week and on a
synthetic week of 2,000 PRs with patches. Prints figures; not a test.

    .venv/bin/python benchmarks/digest.py [--prs 2000]

Each scenario runs in a fresh child process so its peak RSS is its own.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service.core.digest import build_digest  # noqa: E402
from service.core.models import CollectedPeriod  # noqa: E402
from service.core.profile import load_profile  # noqa: E402
from service.core.weeks import previous_window  # noqa: E402
from service.pipeline.recorded import load_recorded  # noqa: E402
from service.render import feishu, report, slack  # noqa: E402

WEEKS = ROOT / "tests" / "data" / "weeks"
NOW = datetime(2026, 12, 2, tzinfo=UTC)
REAL = "2025-W48"
LABELS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")


def real_week() -> CollectedPeriod:
    return load_recorded(WEEKS / f"{REAL}.json", NOW)


def synthetic_week(count: int) -> CollectedPeriod:
    """`count` PRs made of the 132 recorded ones (with their patches), merges spread over a week."""
    real = [pr for label in LABELS for pr in load_recorded(WEEKS / f"{label}.json", NOW).prs]
    base = load_recorded(WEEKS / "2026-W04.json", NOW)
    step = (base.window.end - base.window.start) / count
    prs = [
        real[i % len(real)].model_copy(
            update={
                "number": 100_000 + i,
                "merged_at": base.window.start + step * i + timedelta(seconds=1),
            }
        )
        for i in range(count)
    ]
    return base.model_copy(update={"prs": prs})


def measure(week: CollectedPeriod, earlier: list) -> dict[str, float | int]:
    profile = load_profile("volcengine/verl")
    started = time.perf_counter()
    digest = build_digest(week, profile, language="zh", now=NOW, earlier=earlier)
    analysed = time.perf_counter()
    sizes = {}
    for lang in ("zh", "en"):
        sizes[f"md_{lang}"] = len(report.render_markdown(digest, lang))
        sizes[f"html_{lang}"] = len(report.render_html(digest, lang))
        slack.render_digest(digest, report_url="http://x/r", lang=lang)
        feishu.render_digest(digest, report_url="http://x/r", lang=lang)
    report.render_json(digest)
    rendered = time.perf_counter()
    return {
        "prs": len(week.prs),
        "risks": len(digest.risks),
        "analyse_s": round(analysed - started, 2),
        "render_s": round(rendered - analysed, 2),
        "total_s": round(rendered - started, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "html_zh_kb": sizes["html_zh"] // 1024,
    }


def child(scenario: str, prs: int) -> None:
    if scenario == "real":
        week = real_week()
        before = previous_window(week.window).label
        earlier = load_recorded(WEEKS / f"{before}.json", NOW).prs
    else:
        week, earlier = synthetic_week(prs), []
    print(json.dumps({"scenario": scenario, **measure(week, earlier)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prs", type=int, default=2000)
    parser.add_argument("--child", choices=("real", "synthetic"))
    args = parser.parse_args()
    if args.child:
        child(args.child, args.prs)
        return
    rows = []
    for scenario in ("real", "synthetic"):
        out = subprocess.run(
            [sys.executable, __file__, "--child", scenario, "--prs", str(args.prs)],
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")


if __name__ == "__main__":
    main()
