"""Risk output fingerprints: `detect_risks` on every recorded week (with and without code-search
answers), the sample, the detector zoo and generated weeks (tests/core/risks/generated.py: 2,000
copies of the recorded PRs with a week before them, with and without patches of their own, and
shuffled fortnights), each as the sha256 of its risks' JSON in order. Run it before and after a
change to the detectors to prove that their output did not move; it also prints how long each
analysis took. Not a test (the 2,000-PR weeks take a while on the old code); the recorded weeks
and two fortnights are pinned by tests/core/risks/test_golden.py.

    .venv/bin/python benchmarks/risk_digests.py --save before.json   # on the old code
    .venv/bin/python benchmarks/risk_digests.py --check before.json  # on the new: exit 1 on change
    .venv/bin/python benchmarks/risk_digests.py --quick ...          # no 2,000-PR weeks

`--dump DIR` also writes each scenario's risk JSON, to diff what changed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service.core.models import Risk  # noqa: E402
from service.core.profile import RepoProfile, load_profile  # noqa: E402
from service.core.risks import detect_risks  # noqa: E402
from service.pipeline.recorded import load_recorded, load_sample  # noqa: E402
from tests.core.risks.generated import (  # noqa: E402
    START,
    WEEK,
    copies,
    fortnight,
    recorded_prs,
    searched,
)
from tests.core.risks.zoo import rollup_prs, zoo_risks  # noqa: E402

WEEKS = ROOT / "tests" / "data" / "weeks"
PREVIOUS = {"2025-W48": "2025-W47", "2026-W04": "2026-W03"}
NOW = datetime(2026, 12, 2, tzinfo=UTC)
FORTNIGHTS = 12

Scenario = tuple[str, Callable[[], list[Risk]]]


def scenarios(profile: RepoProfile, *, quick: bool) -> Iterator[Scenario]:
    weeks = {path.stem: load_recorded(path, NOW) for path in sorted(WEEKS.glob("*.json"))}
    for label, week in weeks.items():
        prs, before = week.prs, PREVIOUS.get(label)
        earlier = weeks[before].prs if before else []
        yield label, lambda p=prs, e=earlier: detect_risks(p, profile, earlier=e)
        yield (
            f"{label}+references",
            lambda p=prs, e=earlier: detect_risks(p, profile, earlier=e, references=searched(p)),
        )
    sample = load_sample(NOW).prs
    yield "sample", lambda: detect_risks(sample, profile)
    yield "zoo", lambda: zoo_risks(profile)
    yield "rollup", lambda: detect_risks(rollup_prs(), profile)
    real = recorded_prs(weeks)
    for seed in range(FORTNIGHTS):
        week, earlier = fortnight(real, seed)
        yield f"fortnight-{seed}", lambda w=week, e=earlier: detect_risks(w, profile, earlier=e)
    for distinct in () if quick else (False, True):
        name = "synthetic-2000" + ("-distinct" if distinct else "")
        week = copies(real, 2000, START, first=100_000, distinct=distinct)
        earlier = copies(real, 500, START - WEEK, first=90_000, distinct=distinct)
        yield name, lambda w=week, e=earlier: detect_risks(w, profile, earlier=e)


def fingerprint(risks: list[Risk]) -> str:
    return json.dumps([r.model_dump(mode="json") for r in risks], ensure_ascii=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--save", type=Path, help="write the fingerprints to this file")
    parser.add_argument("--check", type=Path, help="compare with fingerprints saved earlier")
    parser.add_argument("--dump", type=Path, help="write each scenario's risk JSON here")
    parser.add_argument("--quick", action="store_true", help="skip the 2,000-PR weeks")
    args = parser.parse_args()
    profile = load_profile("volcengine/verl")
    expected = json.loads(args.check.read_text()) if args.check else {}
    found: dict[str, str] = {}
    changed = []
    for name, run in scenarios(profile, quick=args.quick):
        started = time.process_time()
        risks = run()
        spent = time.process_time() - started
        text = fingerprint(risks)
        found[name] = hashlib.sha256(text.encode()).hexdigest()
        if args.dump:
            args.dump.mkdir(parents=True, exist_ok=True)
            (args.dump / f"{name}.json").write_text(text, encoding="utf-8")
        verdict = ""
        if name in expected:
            same = expected[name] == found[name]
            verdict = "same" if same else "CHANGED"
            changed += [] if same else [name]
        print(f"{name:28} {len(risks):5} risks {spent:7.2f} s cpu  {found[name][:16]}  {verdict}")
    if args.save:
        args.save.write_text(json.dumps(found, indent=1) + "\n")
    missing = [name for name in expected if name not in found]
    if changed or (missing and not args.quick):
        print(f"changed: {changed}; not run: {missing}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
