"""The labelled corpus of model-written sentences (tests/data/llm/corpus), and the facts each
week's sentences are checked against: the real digest of the recorded week, built with the
earlier recorded week when the corpus names one (so comparisons have their earlier figures)."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from service.core.analyst.facts import PeriodFacts, build_facts
from service.core.digest import build_digest
from service.core.profile import load_profile
from tests.commands.builders import digest_from_week
from tests.conftest import NOW, load_week

CORPUS = Path(__file__).parents[2] / "data" / "llm" / "corpus"
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


@dataclass(frozen=True)
class Sentence:
    week: str
    lang: str
    section: str
    text: str
    prs: tuple[int, ...]
    label: bool
    kind: str
    why: str


def load_corpus(folder: Path = CORPUS) -> list[Sentence]:
    """Every labelled sentence of every week in `folder`."""
    out = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        out += [
            Sentence(
                week=data["week"],
                lang=s["lang"],
                section=s["section"],
                text=s["text"],
                prs=tuple(s["prs"]),
                label=s["label"],
                kind=s["class"],
                why=s["why"],
            )
            for s in data["sentences"]
        ]
    return out


def earlier_week(week: str) -> str | None:
    data = json.loads((CORPUS / f"{week}.json").read_text("utf-8"))
    earlier: str | None = data.get("previous")
    return earlier


@functools.lru_cache(maxsize=16)
def corpus_facts(week: str, language: str) -> PeriodFacts:
    """The facts of `week` in `language`, with the earlier week's counts when it is stored."""
    earlier = earlier_week(week)
    collected = load_week(week)
    previous = digest_from_week(load_week(earlier), language=language) if earlier else None
    digest = build_digest(
        collected, load_profile(collected.repo), language=language, now=NOW, previous=previous
    )
    return build_facts(digest, collected.prs)
