"""The checker on model-written answers (tests/data/llm/model_corpus): each answer a capable model
wrote to the exact request the service sends for a recorded week (captured with
benchmarks/capture_request.py), every sentence labelled true / false / misleading against the
raw PR data by a reader who did not write it, and an adversarial batch per week (subtle mistakes
and true sentences). Prints, per part (`tune` to `tune5`, `seen` to `seen10`: tuned on; `heldout`:
never tuned on, its figures also together as `held-out`), batch (answers /
adversarial) and language, how many true sentences the checker keeps and how many false or
misleading ones it lets through, its precision (the share of kept sentences that are true) and
recall (the share of true sentences kept) per language, and per mistake kind how many were
caught; `--verified` replays the recorded verifier answers through the real verification pass
after the rules (`<stem>.verify.<n>.answer.json`); `--verbose` lists each wrong verdict of the
parts tuned on (never the held-out part's: its figures only, so that nobody tunes to it by
accident). Not a test: tests/core/analyst/test_model_corpus.py holds the floors.

    .venv/bin/python benchmarks/model_corpus.py --part tune [--verified] [--verbose]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.core.analyst.model_corpus import CORPUS, Verdict, verdicts  # noqa: E402

# held-out parts (a part holds one answer per week and language: weeks of different
# repositories that share a label go in parts of their own)
HELDOUT = ("heldout",)
TUNES = ("tune", "tune2", "tune3", "tune4", "tune5")
TUNED = (*TUNES, *(f"seen{n}" for n in ("", 2, 3, 4, 5, 6, 7, 8, 9, 10)))
PARTS = (*TUNED, *HELDOUT)


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


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "-"


def precision_recall(rows: list[Verdict]) -> str:
    """Precision (kept sentences that are true) and recall (true sentences kept)."""
    kept = [v for v in rows if v.kept]
    true = [v for v in rows if v.label == "true"]
    kept_true = sum(v.label == "true" for v in kept)
    return f"{_share(kept_true, len(kept))} | {_share(kept_true, len(true))}"


# each writer named its mistakes in its own words: the first kind whose pattern the words hold
KINDS = (
    ("misleading (true facts, false whole)", r"misleading"),
    ("a PR of one repository told as another's", r"one repository told as another"),
    ("order in time reversed", r"order in time"),
    ("default told as the other value", r"\bdefault"),
    ("old told as new / direction flipped", r"\bold\b|\bremoved\b|direction|flipped"),
    ("relation or PR number", r"relation|pr number|swapped pr|earlier pr"),
    ("count or total", r"\bcount|\btotal"),
    ("figure or table value misplaced", r"figure|table|\brow\b|column|option"),
    ("version or name", r"version|\bname\b|class|file"),
    ("judgement or action nobody made", r"judgement|action|consequence|plan|claim"),
    ("comparison", r"comparison"),
)


def kind_of(kind: str) -> str:
    """The mistake kind a writer's own wording names (KINDS), else `other: <wording>`."""
    low = kind.lower()
    return next((name for name, words in KINDS if re.search(words, low)), "other: " + kind)


def report(rows: list[Verdict], verbose: bool) -> None:
    groups: dict[tuple[str, str, str], list[Verdict]] = defaultdict(list)
    for v in rows:
        groups[(v.part, v.batch, v.lang)].append(v)
        groups[(v.part, v.batch, "all")].append(v)
        if v.part in HELDOUT:  # the held-out figures over both its parts
            groups[("held-out", v.batch, v.lang)].append(v)
            groups[("held-out", v.batch, "all")].append(v)
    print("| part | batch | lang | sentences | figures | precision | recall |")
    print("|---|---|---|---|---|---|---|")
    for (part, batch, lang), group in sorted(groups.items()):
        print(
            f"| {part} | {batch} | {lang} | {len(group)} | {_figures(group)} "
            f"| {precision_recall(group)} |"
        )
    kinds = Counter(kind_of(v.kind) for v in rows if v.label != "true" and v.kind)
    kept_kinds = Counter(kind_of(v.kind) for v in rows if v.label != "true" and v.kind and v.kept)
    if kinds:
        print("\n| mistake kind | false | kept | caught |\n|---|---|---|---|")
        for kind, count in kinds.most_common():
            caught = _share(count - kept_kinds[kind], count)
            print(f"| {kind} | {count} | {kept_kinds[kind]} | {caught} |")
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
    parser.add_argument("--part", choices=PARTS, action="append")
    parser.add_argument("--verified", action="store_true", help="replay the recorded verifier")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    parts = args.part or (TUNED if args.verbose else PARTS)
    parts = [p for p in parts if (CORPUS / p).is_dir()]  # the held-out part may be unrecorded
    if args.verbose and set(HELDOUT) & set(parts):
        parser.error(f"--verbose lists misses: not of the held-out parts ({', '.join(HELDOUT)})")
    rows = [v for part in parts for v in verdicts(part, verified=args.verified)]
    if args.verified:
        for part in parts:
            recorded = len(list((CORPUS / part).glob("*.verify.*.answer.json")))
            print(f"{part}: {recorded} recorded verifier answers (a sentence never judged stays)")
    report(rows, args.verbose)


if __name__ == "__main__":
    main()
