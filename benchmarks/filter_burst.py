"""CPU of a burst of 30 filtered chat reads (`risks|summary|top <week> path:<globs>`) on a
2,000-PR week (the real 2026-W04 PRs repeated): the path index's cost, measured, not asserted
(tests/commands/test_filter_burst.py holds the behaviour). Not a test.

    .venv/bin/python benchmarks/filter_burst.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.commands.test_filter_burst import BURST, GLOBS, Reader  # noqa: E402
from tests.feishu.builders import big_digest  # noqa: E402


def main() -> None:
    from datetime import UTC, datetime

    from service.commands.answer import answer_text
    from service.commands.context import Caller, EngineContext

    digest = big_digest(2000, language="en")
    ctx = EngineContext(
        reader=Reader(digest),  # type: ignore[arg-type]
        repos=[digest.repo],
        language="en",
        timezone="Asia/Shanghai",
        clock=lambda: datetime(2026, 3, 1, tzinfo=UTC),
        admins=frozenset(),
        subscriptions=type("S", (), {"subscriptions": lambda *a, **k: []})(),  # type: ignore[arg-type]
        report_url=lambda repo, week: "",
    )
    verbs = ["risks", "summary", "top"]
    texts = [
        f"{verbs[i % 3]} {digest.period} path:{','.join(GLOBS[i % len(GLOBS)])}"
        for i in range(BURST)
    ]
    started = time.process_time()
    for text in texts:
        answer_text(text, Caller("U1", "slack", "C1"), ctx)
    spent = time.process_time() - started
    print(
        f"{BURST} filtered reads on {len(digest.prs)} PRs: {spent:.2f} s CPU "
        f"(load average {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
