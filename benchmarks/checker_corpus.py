"""The analyst's checker on the labelled corpus (tests/data/llm/corpus), before and after: per
class of claim and language, how many false sentences it stops (recall) and how many of the
sentences it drops are false (precision), with the corpus size; and its time on a 46-PR and a
2,000-PR week. Prints Markdown; not a test.

    .venv/bin/python benchmarks/checker_corpus.py [--before main] [--repeat 10]

"Before" is the checker of another git revision (default `main`): its `service`, `benchmarks`
and `tests/data/weeks` folders are extracted with `git archive` into a temporary folder and
the same measurement runs there in a subprocess, on the same corpus and the same digests of
the big weeks (built once, here). A dropped false sentence is a true positive: the checker's
job is to drop what is false and keep what is true.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "llm" / "corpus"
WEEKS = ROOT / "tests" / "data" / "weeks"
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
CLASSES = (
    "figure",
    "swap",
    "direction",
    "relation",
    "default",
    "comparison",
    "absence",
    "failure",
    "injection",
)
SIZES = (46, 2000)


def _sentences() -> list[dict[str, Any]]:
    out = []
    for path in sorted(CORPUS.glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        out += [
            {**s, "week": data["week"], "previous": data["previous"]} for s in data["sentences"]
        ]
    return out


# --- the measurement, run in the tree under test ------------------------------------------


def _facts(week: str, previous: str | None, lang: str) -> Any:
    from service.core.analyst.facts import build_facts
    from service.core.digest import build_digest
    from service.core.profile import load_profile
    from service.pipeline.recorded import load_recorded

    collected = load_recorded(WEEKS / f"{week}.json", NOW)
    profile = load_profile(collected.repo)
    earlier = None
    if previous:
        before = load_recorded(WEEKS / f"{previous}.json", NOW)
        earlier = build_digest(before, profile, language=lang, now=NOW)
    digest = build_digest(collected, profile, language=lang, now=NOW, previous=earlier)
    return build_facts(digest, collected.prs)


def _kept(sentences: list[dict[str, Any]]) -> list[bool]:
    from service.core.analyst.checker import Checker, check_text

    checkers: dict[tuple[str, str], Any] = {}
    kept = []
    for s in sentences:
        key = (s["week"], s["lang"])
        if key not in checkers:
            checkers[key] = Checker(_facts(s["week"], s["previous"], s["lang"]))
        kept.append(not check_text(s["text"], s["prs"], s["section"], checkers[key]))
    return kept


def _timing(digest_file: Path, count: int, repeat: int) -> dict[str, float]:
    from benchmarks.analyst import full_answer
    from benchmarks.digest import synthetic_week
    from service.core.analyst.checker import check_answer
    from service.core.analyst.facts import build_facts
    from service.core.models import Digest

    digest = Digest.model_validate_json(digest_file.read_text("utf-8"))
    prs = synthetic_week(count).prs
    started = time.perf_counter()
    facts = build_facts(digest, prs)
    facts_ms = (time.perf_counter() - started) * 1000
    drafts = full_answer(facts)
    runs, kept = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        analysis = check_answer(drafts, facts, model="m", prompt_version="1")
        runs.append((time.perf_counter() - started) * 1000)
        kept = len(drafts) - len(analysis.dropped)
    return {
        "facts_ms": facts_ms,
        "check_ms": statistics.median(runs),
        "sentences": len(drafts),
        "kept": kept,
    }


def worker(digests: dict[int, Path], repeat: int) -> dict[str, Any]:
    """What one tree's checker does with the corpus and the big weeks."""
    return {
        "kept": _kept(_sentences()),
        "timing": {str(n): _timing(path, n, repeat) for n, path in digests.items()},
    }


# --- driving both trees -------------------------------------------------------------------


def _digests(folder: Path) -> dict[int, Path]:
    """The digests of the 46- and 2,000-PR synthetic weeks, built once (by this tree's core,
    which both checkers read)."""
    from benchmarks.digest import synthetic_week
    from service.core.digest import build_digest
    from service.core.profile import load_profile

    out = {}
    for count in SIZES:
        digest = build_digest(
            synthetic_week(count), load_profile("volcengine/verl"), language="zh", now=NOW
        )
        path = folder / f"digest-{count}.json"
        path.write_text(digest.model_dump_json(), "utf-8")
        out[count] = path
    return out


def _extract(revision: str, folder: Path) -> None:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "service", "benchmarks", "tests/data/weeks"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")


def _run(tree: Path, digests: dict[int, Path], repeat: int) -> dict[str, Any]:
    payload = json.dumps({"digests": {n: str(p) for n, p in digests.items()}, "repeat": repeat})
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", payload],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=tree,
    )
    if done.returncode:
        raise SystemExit(f"the checker of {tree} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _scores(sentences: list[dict[str, Any]], kept: list[bool]) -> dict[tuple[str, str], str]:
    """Per (class, language): recall (false dropped / false) and precision (false dropped /
    dropped)."""
    tally: Counter[tuple[str, str, str]] = Counter()
    for s, k in zip(sentences, kept, strict=True):
        for lang in (s["lang"], "all"):
            outcome = ("false" if not s["label"] else "true") + ("-kept" if k else "-dropped")
            tally[(s["class"], lang, outcome)] += 1
    out = {}
    for kind in (*CLASSES, "entity", "paraphrase"):
        for lang in ("zh", "en", "all"):
            stopped = tally[(kind, lang, "false-dropped")]
            false = stopped + tally[(kind, lang, "false-kept")]
            dropped = stopped + tally[(kind, lang, "true-dropped")]
            true = tally[(kind, lang, "true-kept")] + tally[(kind, lang, "true-dropped")]
            recall = f"{stopped}/{false}" if false else "–"
            precision = f"{stopped}/{dropped}" if dropped else "–"
            out[(kind, lang)] = (
                f"{recall} · {precision} · {tally[(kind, lang, 'true-kept')]}/{true}"
            )
    return out


def _report(sentences: list[dict[str, Any]], before: dict[str, Any], after: dict[str, Any]) -> None:
    true = Counter(s["lang"] for s in sentences if s["label"])
    false = Counter(s["lang"] for s in sentences if not s["label"])
    print(
        f"Corpus: {len(sentences)} sentences over {len({s['week'] for s in sentences})} weeks — "
        f"zh {true['zh']} true + {false['zh']} false, en {true['en']} true + {false['en']} false."
    )
    print()
    print("Each cell: false stopped/false · false among dropped/dropped · true kept/true.")
    print()
    print("| class | zh before | zh after | en before | en after |")
    print("|---|---|---|---|---|")
    old, new = _scores(sentences, before["kept"]), _scores(sentences, after["kept"])
    for kind in (*CLASSES, "entity", "paraphrase"):
        cells = [old[(kind, "zh")], new[(kind, "zh")], old[(kind, "en")], new[(kind, "en")]]
        print(f"| {kind} | " + " | ".join(cells) + " |")
    totals = [_total(sentences, k, lang) for lang in ("zh", "en") for k in (before, after)]
    print("| **all** | " + " | ".join(totals) + " |")
    print()
    print("| week | checker | facts ms | check ms (median) | sentences kept |")
    print("|---|---|---:|---:|---:|")
    for count in SIZES:
        for name, result in (("before", before), ("after", after)):
            t = result["timing"][str(count)]
            print(
                f"| {count} PRs | {name} | {t['facts_ms']:.0f} | {t['check_ms']:.1f} | "
                f"{t['kept']}/{t['sentences']} |"
            )


def _total(sentences: list[dict[str, Any]], result: dict[str, Any], lang: str) -> str:
    pairs = [(s, k) for s, k in zip(sentences, result["kept"], strict=True) if s["lang"] == lang]
    stopped = sum(1 for s, k in pairs if not s["label"] and not k)
    false = sum(1 for s, _ in pairs if not s["label"])
    dropped = sum(1 for _, k in pairs if not k)
    kept_true = sum(1 for s, k in pairs if s["label"] and k)
    true = sum(1 for s, _ in pairs if s["label"])
    return f"{stopped}/{false} · {stopped}/{dropped} · {kept_true}/{true}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="git revision of the 'before' checker")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        job = json.loads(args.worker)
        digests = {int(n): Path(p) for n, p in job["digests"].items()}
        print(json.dumps(worker(digests, job["repeat"])))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        digests = _digests(folder)
        old_tree = folder / "before"
        _extract(args.before, old_tree)
        before = _run(old_tree, digests, args.repeat)
        after = _run(ROOT, digests, args.repeat)
    _report(_sentences(), before, after)


if __name__ == "__main__":
    if "--worker" not in sys.argv:  # a worker imports the tree under test, from PYTHONPATH
        sys.path.insert(0, str(ROOT))
    main()
