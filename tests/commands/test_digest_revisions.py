"""The command cache keeps a parsed digest across its ttl while the stored one is unchanged:
past the ttl it asks the store for the digest's revision token, not for the digest, and reads
the digest again only once a save has changed the token (issue 30: a 2,000-PR digest is not
parsed again every minute for nothing)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from service.commands.context import DIGEST_CACHE_TTL, CachedReader
from service.core.models import Digest, Period
from service.store.repository import Store
from tests.commands.conftest import REPO, Clock
from tests.periods import TIMEZONE, period

WEEK = "2026-W04"


@dataclass
class CountingStore:
    """The real store, counting its digest reads and revision checks."""

    store: Store
    calls: Counter[str] = field(default_factory=Counter)

    def get_digest(self, repo: str, week: Period, language: str) -> Digest | None:
        self.calls["digest"] += 1
        return self.store.get_digest(repo, week, language)

    def digest_revision(self, repo: str, week: Period, language: str) -> str | None:
        self.calls["revision"] += 1
        return self.store.digest_revision(repo, week, language)

    def latest_digest(self, repo: str, language: str) -> Digest | None:
        weeks = self.list_periods(repo, language)
        return self.get_digest(repo, period(weeks[0]), language) if weeks else None

    def list_periods(self, repo: str, language: str | None = None) -> list[str]:
        return self.store.list_periods(repo, language)


def test_every_save_gets_a_new_revision_and_an_unknown_digest_none(
    store: Store, digests: dict[str, Digest]
) -> None:
    first = store.digest_revision(REPO, period(WEEK), "en")
    assert first is not None
    assert store.digest_revision(REPO, period(WEEK), "en") == first  # asking changes nothing
    store.save_digest(digests[WEEK])  # the same digest saved again (a narration, say)
    assert store.digest_revision(REPO, period(WEEK), "en") not in (None, first)
    assert store.digest_revision(REPO, period("2020-W01"), "en") is None


def test_an_unchanged_digest_is_not_read_again_past_the_ttl(
    store: Store, clock: Clock, digests: dict[str, Digest]
) -> None:
    counting = CountingStore(store)
    cached = CachedReader(counting, clock, spawn=lambda refresh: refresh(), timezone=TIMEZONE)
    first = cached.get_digest(REPO, period(WEEK), "en")
    assert counting.calls == {"digest": 1, "revision": 1}
    for _ in range(3):  # three expiries, the stored digest unchanged
        clock.now += DIGEST_CACHE_TTL
        assert cached.get_digest(REPO, period(WEEK), "en") is first
    assert counting.calls == {"digest": 1, "revision": 4}
    clock.now += DIGEST_CACHE_TTL / 2
    assert cached.get_digest(REPO, period(WEEK), "en") is first  # renewed: within the ttl again
    assert counting.calls["revision"] == 4

    rebuilt = digests[WEEK].model_copy(update={"discussion_url": "https://x.test/d"})
    store.save_digest(rebuilt)
    clock.now += DIGEST_CACHE_TTL
    assert cached.get_digest(REPO, period(WEEK), "en") is first  # served while the refresh runs
    assert cached.get_digest(REPO, period(WEEK), "en") == rebuilt  # (here it ran at once)
    assert counting.calls["digest"] == 2


def test_a_reader_without_revisions_reads_the_digest_again(
    store: Store, clock: Clock, digests: dict[str, Digest]
) -> None:
    class Plain:  # a DigestReader that cannot say whether its digest changed
        get_digest = store.digests.get_digest
        latest_digest = store.digests.latest_digest
        list_periods = store.digests.list_periods

    cached = CachedReader(Plain(), clock, spawn=lambda refresh: refresh(), timezone=TIMEZONE)
    first = cached.get_digest(REPO, period(WEEK), "en")
    clock.now += DIGEST_CACHE_TTL
    assert cached.get_digest(REPO, period(WEEK), "en") is first  # stale, served; refreshed at once
    again = cached.get_digest(REPO, period(WEEK), "en")
    assert again == first
    assert again is not first  # read and parsed anew
