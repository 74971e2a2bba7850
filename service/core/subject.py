"""What a digest is about: a scope (one repository or a named family, core/scope.py) over a
period (a week, a month, a range, any registered kind: core/periods/). The pair is the
digest's key in the store, its report link and its run's lock."""

from __future__ import annotations

from dataclasses import dataclass

from service.core.models import Digest, Period
from service.core.scope import Scope


@dataclass(frozen=True)
class Subject:
    scope: Scope
    period: Period

    @property
    def key(self) -> tuple[str, str]:
        """(scope, period label): what the store keys the subject's digests, deliveries and
        runs by."""
        return self.scope.key, self.period.label

    @property
    def lock(self) -> str:
        """The name of the lock one run of the subject holds (`week:volcengine/verl:2026-W04`:
        the kind first, as before there were periods)."""
        return f"{self.period.kind}:{self.scope.key}:{self.period.label}"


def subject_of(digest: Digest) -> Subject:
    """The subject `digest` tells: its repository or family, over its period."""
    repos = tuple(digest.repo_names) or (digest.repo,)
    return Subject(Scope(digest.repo, repos), digest.window)
