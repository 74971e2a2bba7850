"""Filtered reads on a 2,000-PR week (the real 2026-W04 PRs repeated, tests/feishu/builders.py):
a `path:` filter is matched through the digest's path index, only against the paths that start
with its literal part, and gives the PRs that matching every path of every PR gives; a burst of
filtered commands answers from one index made once for the digest. The burst's CPU is a figure
of benchmarks/filter_burst.py, not a timed test."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.commands.answer import answer_text
from service.commands.context import Caller, EngineContext
from service.commands.kinds import AnswerKind
from service.core.filters import _INDEXES, DigestFilter, PathIndex, _path_hit, matching_numbers
from service.core.models import Digest, Period
from tests.feishu.builders import big_digest

GLOBS = [
    ("verl/workers/**",),
    ("docs",),
    ("docs/",),
    ("*.md",),
    ("**/*.py",),
    ("verl/*/utils.py", "tests/**"),
    ("verl/trainer/ppo/ray_trainer.py",),
    ("nothing/here/**",),
    ("?erl/**",),
]
BURST = 30


@pytest.fixture(scope="module")
def digest() -> Digest:
    return big_digest(2000, language="en")


@pytest.mark.parametrize("globs", GLOBS)
def test_the_path_index_finds_what_every_path_of_every_pr_finds(
    digest: Digest, globs: tuple[str, ...]
) -> None:
    every = {p.number for p in digest.prs if any(_path_hit(path, globs) for path in p.paths)}
    assert PathIndex.of(digest).numbers(globs) == every
    flt = DigestFilter(paths=globs)
    assert set(matching_numbers(digest, flt)) == every


class Reader:
    """The week and the week before, as the cached reader of `serve` hands them out."""

    def __init__(self, digest: Digest) -> None:
        self.digest = digest
        self.before = digest.model_copy(update={"period": digest.trends.previous_period or "x"})

    def get_digest(self, repo: str, week: Period, language: str) -> Digest | None:
        return {self.digest.period: self.digest, self.before.period: self.before}.get(week.label)

    def list_periods(self, repo: str, language: str | None = None) -> list[str]:
        return [self.digest.period]

    def latest_digest(self, repo: str, language: str) -> Digest | None:
        return self.digest


class NoSubscriptions:
    def subscriptions(self, *_args: object, **_kwargs: object) -> list[object]:
        return []


def test_a_burst_of_filtered_reads_answers_from_one_index_of_the_digest(digest: Digest) -> None:
    ctx = EngineContext(
        reader=Reader(digest),
        repos=[digest.repo],
        language="en",
        timezone="Asia/Shanghai",
        clock=lambda: datetime(2026, 3, 1, tzinfo=UTC),
        admins=frozenset(),
        subscriptions=NoSubscriptions(),  # type: ignore[arg-type]
        report_url=lambda repo, week: "",
    )
    verbs = ["risks", "summary", "top"]
    texts = [
        f"{verbs[i % 3]} {digest.period} path:{','.join(GLOBS[i % len(GLOBS)])}"
        for i in range(BURST)
    ]
    answers = [answer_text(text, Caller("U1", "slack", "C1"), ctx) for text in texts]
    index = _INDEXES.of(digest)
    assert {a.kind for a in answers} <= {
        AnswerKind.RISKS,
        AnswerKind.SUMMARY,
        AnswerKind.TOP,
        AnswerKind.NO_MATCH,
    }
    assert _INDEXES.of(digest) is index  # made once, kept for the digest's later reads
    assert any(a.kind != AnswerKind.NO_MATCH for a in answers)
