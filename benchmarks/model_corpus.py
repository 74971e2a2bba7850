"""The checker on model-written answers (tests/data/llm/model_corpus): each answer a capable
model wrote to the exact request the service sends for a recorded week (captured with
benchmarks/capture_request.py), every sentence labelled true / false / misleading against the
raw PR data by a reader who did not write it, and an adversarial batch per week (subtle
mistakes and true sentences). Prints, per part (tune / heldout), batch (answers /
adversarial) and language, how many true sentences the checker keeps and how many false or
misleading ones it lets through, and per mistake kind; `--verbose` lists each wrong verdict.
Not a test: tests/core/analyst/test_model_corpus.py holds the floors.

    .venv/bin/python benchmarks/model_corpus.py [--part heldout] [--verbose]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.core.analyst.model_corpus import Verdict, verdicts  # noqa: E402


def _figures(rows: list[Verdict]) -> str:
    true = [v for v in rows if v.label == "true"]
    wrong = [v for v in rows if v.label != "true"]
    kept_true = sum(v.kept for v in true)
    kept_wrong = sum(v.kept for v in wrong)
    share = f"{kept_true / len(true):.1%}" if true else "-"
    return (
        f"{kept_true}/{len(true)} true kept ({share}); "
        f"{kept_wrong}/{len(wrong)} false or misleading kept"
    )


def report(rows: list[Verdict], verbose: bool) -> None:
    groups: dict[tuple[str, str, str], list[Verdict]] = defaultdict(list)
    for v in rows:
        groups[(v.part, v.batch, v.lang)].append(v)
        groups[(v.part, v.batch, "all")].append(v)
    print("| part | batch | lang | sentences | figures |\n|---|---|---|---|---|")
    for (part, batch, lang), group in sorted(groups.items()):
        print(f"| {part} | {batch} | {lang} | {len(group)} | {_figures(group)} |")
    kinds = Counter(v.kind for v in rows if v.label != "true" and v.kind)
    kept_kinds = Counter(v.kind for v in rows if v.label != "true" and v.kind and v.kept)
    if kinds:
        print("\n| mistake kind | false | kept |\n|---|---|---|")
        for kind, count in kinds.most_common():
            print(f"| {kind} | {count} | {kept_kinds[kind]} |")
    if verbose:
        print()
        for v in rows:
            if v.kept != (v.label == "true"):
                what = "KEPT " + v.label if v.kept else "DROPPED true"
                print(f"- [{v.part} {v.batch} {v.week} {v.lang} {v.section}] {what}: {v.text}")
                for reason in v.reasons:
                    print(f"    {reason}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("tune", "seen", "heldout"), action="append")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    rows = [v for part in args.part or ("tune", "seen", "heldout") for v in verdicts(part)]
    report(rows, args.verbose)


if __name__ == "__main__":
    main()
