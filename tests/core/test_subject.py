"""A digest's subject (core/subject.py): its scope (a repository or a family) over its period,
the key the store and the run lock know it by, read off a digest built from a recorded week."""

from __future__ import annotations

from service.core.digest import build_digest
from service.core.models import Period
from service.core.profile import load_profile
from service.core.scope import Scope
from service.core.subject import Subject, subject_of
from tests.conftest import NOW, load_week

REPO = "volcengine/verl"
TZ = "Asia/Shanghai"


def test_a_digest_tells_one_scope_over_one_period() -> None:
    digest = build_digest(load_week("2026-W04"), load_profile(REPO), language="en", now=NOW)
    subject = subject_of(digest)
    assert subject.scope == Scope.one(REPO)
    assert subject.period.kind == "week"
    assert (subject.period.start, subject.period.end) == (digest.start, digest.end)
    assert subject.key == (REPO, "2026-W04")
    assert subject.lock == f"week:{REPO}:2026-W04"  # the lock's name as before periods


def test_a_family_over_a_month() -> None:
    family = Scope("verl-project", ("volcengine/verl", "verl-project/verl-omni"))
    subject = Subject(family, Period.of_label("2026-01", TZ))
    assert subject.key == ("verl-project", "2026-01")
    assert subject.lock == "month:verl-project:2026-01"
    assert subject.period.previous().label == "2025-12"
