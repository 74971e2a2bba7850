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
import json
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPUS = ROOT / "tests" / "data" / "llm" / "model_corpus"
WEEKS = ROOT / "tests" / "data" / "weeks"
TOKEN = "ghp_corpusToken0123456789abcdef012"  # noqa: S105 - the fake GitHub's


@dataclass(frozen=True)
class Verdict:
    """One labelled sentence and what the checker did with it."""

    part: str
    batch: str
    week: str
    lang: str
    section: str
    text: str
    label: str
    kind: str
    kept: bool
    reasons: tuple[str, ...]


def week_file(week: str, repo: str | None = None) -> Path:
    """The recorded week: tests/data/weeks/<week>.json, or <owner>/<name>.<week>.json there."""
    if repo:
        owner, name = repo.split("/")
        named = WEEKS / owner / f"{name}.{week}.json"
        if named.exists():
            return named
    return WEEKS / f"{week}.json"


def facts_for(meta: dict[str, Any], lang: str) -> Any:
    """The week's facts exactly as the narrator builds them for the request: the real pipeline
    collects the week (and the week before, when recorded) from the fake GitHub serving the
    recorded files, as benchmarks/capture_request.py did, and the facts come from the stored
    digest and PR snapshots."""
    from service import wiring
    from service.core.analyst.facts import build_facts
    from service.core.periods import period_of_label
    from service.jobs import build_week
    from service.settings import Settings
    from tests.fakes.github import FakeGitHub

    repo = meta["repo"]
    data = json.loads(week_file(meta["week"], repo).read_text("utf-8"))
    github = FakeGitHub(repo, token=TOKEN)
    github.serve_week(data)
    if meta.get("previous"):
        github.serve_week(json.loads(week_file(meta["previous"], repo).read_text("utf-8")))
    with tempfile.TemporaryDirectory() as folder, github.running():
        settings = Settings(
            github_api_url=github.url,
            github_graphql_url=github.graphql_url,
            github_token=TOKEN,
            database_url=f"sqlite:///{folder}/corpus.db",
            digest_repos=repo,
            digest_timezone=data.get("timezone", "Asia/Shanghai"),
            digest_language=lang,
        )
        pipeline = wiring.build_pipeline(settings, with_senders=False, llm=False)
        timezone = settings.digest_timezone
        if meta.get("previous"):
            build_week(pipeline, repo, period_of_label(meta["previous"], timezone))
        digest = build_week(pipeline, repo, period_of_label(meta["week"], timezone))
        prs = pipeline.store.load_prs(repo, meta["week"])
        return build_facts(digest, prs, lang)


def _outcomes(answer: str, facts: Any) -> dict[tuple[str, str], tuple[bool, tuple[str, ...]]]:
    from service.core.analyst.checker import check_answer
    from service.core.analyst.schema import parse_answer

    analysis = check_answer(parse_answer(answer), facts, model="corpus", prompt_version="corpus")
    out: dict[tuple[str, str], tuple[bool, tuple[str, ...]]] = {}
    for section in ("summary", "key_changes", "pr_points", "trends", "recommendations"):
        for item in getattr(analysis, section):
            out[(section, " ".join(item.text.split()))] = (True, ())
    for item in analysis.review_notes:
        out[("review_notes", " ".join(item.text.split()))] = (True, ())
    if analysis.headline is not None:
        out[("headline", " ".join(analysis.headline.text.split()))] = (True, ())
    for dropped in analysis.dropped:
        key = (dropped.section, " ".join(dropped.text.split()))
        out.setdefault(key, (False, tuple(dropped.reasons)))
    return out


def verdicts(part: str) -> list[Verdict]:
    """Every labelled sentence of one part, with the checker's verdict."""
    out: list[Verdict] = []
    for labels_path in sorted((CORPUS / part).glob("*.labels.json")):
        labels = json.loads(labels_path.read_text("utf-8"))
        answer_path = labels_path.with_name(labels_path.name.replace(".labels.", ".answer."))
        meta = json.loads((CORPUS / part / "weeks.json").read_text("utf-8"))[labels["week"]]
        batch = "adversarial" if ".adversarial." in labels_path.name else "answers"
        facts = facts_for(meta, labels["lang"])
        outcome = _outcomes(answer_path.read_text("utf-8"), facts)
        for s in labels["sentences"]:
            if s["section"] == "headline" and not s["text"].strip():
                continue
            kept, reasons = outcome.get((s["section"], " ".join(s["text"].split())), (False, ()))
            out.append(
                Verdict(
                    part,
                    batch,
                    labels["week"],
                    labels["lang"],
                    s["section"],
                    s["text"],
                    s["label"],
                    s.get("kind", ""),
                    kept,
                    reasons,
                )
            )
    return out


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
    parser.add_argument("--part", choices=("tune", "heldout"), action="append")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    rows = [v for part in args.part or ("tune", "heldout") for v in verdicts(part)]
    report(rows, args.verbose)


if __name__ == "__main__":
    main()
