"""Breaking items by kind on every recorded week (tests/data/weeks): what users meet, as the
breaking and migration detectors find it, so a change to them shows in figures. Prints one table
row per week (counts by kind) and, with --items, every item with its PR and evidence lines.

    .venv/bin/python benchmarks/breaking_items.py            # counts by kind per week
    .venv/bin/python benchmarks/breaking_items.py --items    # and each item: old → new, file:line

Kinds: config key moved or renamed, default changed, config key removed, CLI flag / environment
variable removed or renamed, import path moved (module or function), module deleted, public
function removed (used outside its file), migration to a submodule or another repository, other
removal of many files.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service.core.models import RiskKind  # noqa: E402
from service.core.profile import load_profile  # noqa: E402
from service.core.risks import breaking, detect_risks  # noqa: E402
from service.core.risks.base import Context  # noqa: E402
from service.core.titles import parse_title  # noqa: E402
from service.pipeline.recorded import load_recorded  # noqa: E402

WEEKS = ("2025-W47", "2025-W48", "2026-W03", "2026-W04")
NOW = datetime(2026, 6, 1, tzinfo=UTC)
KINDS = {
    "moved_config_key": "moved/renamed key",
    "default_changed": "default changed",
    "removed_config_key": "removed key",
    "removed_flag": "flag removed/renamed",
    "removed_env": "env var removed/renamed",
    "renamed_module": "import path moved",
    "moved_symbol": "import path moved",
    "removed_module": "module deleted",
    "removed_symbol": "public function removed",
    "submodule": "migration (submodule)",
    "moved_repository": "migration (other repo)",
}
OTHER_MIGRATION = "large removal"


def _rows(label: str, show: bool) -> Counter[str]:
    week = load_recorded(ROOT / "tests" / "data" / "weeks" / f"{label}.json", NOW)
    profile = load_profile(week.repo)
    context = Context(profile=profile)
    counts: Counter[str] = Counter()
    for pr in week.prs:
        if parse_title(pr.title).is_revert:
            continue  # the follow-up detector reports a revert, not the breaking one
        for rule, items in breaking.items_by_rule(pr, context).items():
            counts[KINDS[rule]] += len(items)
            for item in items if show else []:
                where = ", ".join(
                    f"{e.path}:{e.line}" if e.line else str(e.path) for e in item.proofs
                )
                print(f"  {label} #{pr.number} {KINDS[rule]}: {item.name}  [{where}]")
    for risk in detect_risks(week.prs, profile):
        for leaf in risk.members or [risk]:
            if leaf.kind == RiskKind.MIGRATION:
                kind = KINDS.get(leaf.rule, OTHER_MIGRATION)
                counts[kind] += 1
                if show:
                    url = leaf.params.get("url", "")
                    print(f"  {label} #{leaf.prs[0]} {kind}: {leaf.params['targets']} {url}")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--items", action="store_true", help="list every item")
    args = parser.parse_args()
    columns = list(dict.fromkeys([*KINDS.values(), OTHER_MIGRATION]))
    rows = {label: _rows(label, args.items) for label in WEEKS}
    print("| week | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for label, counts in rows.items():
        print(f"| {label} | " + " | ".join(str(counts[c]) for c in columns) + " |")


if __name__ == "__main__":
    main()
