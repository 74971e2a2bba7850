"""Idempotent delivery of a digest to chat destinations: record intent → send → record id.

A destination is `platform:target` (`slack:C0123`, `feishu:oc_abc`, `webhook:feishu`). The log
is written before each send and after it, so a re-run, a restart or a second process never
posts a (repo, week, destination) twice; `force` edits the earlier message in place instead.
A record left at `intent` (the process died between sending and recording) is reconciled with
the platform (`Sender.find_posted`) before anything is sent again.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Protocol

from service.core.models import Digest
from service.errors import ServiceError

logger = logging.getLogger(__name__)


class Sender(Protocol):
    """One platform's way to post and edit the weekly card."""

    platform: str

    def post(self, target: str, digest: Digest, *, idempotency_key: str) -> str:
        """Post the card; returns the platform's message id."""
        ...

    def update(self, target: str, message_id: str, digest: Digest) -> str:
        """Edit an earlier card in place; returns the (possibly new) message id."""
        ...

    def find_posted(self, target: str, idempotency_key: str) -> str | None:
        """The id of a card already posted with this key, if the platform can tell."""
        ...


class DeliveryRecordLike(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def message_id(self) -> str | None: ...
    @property
    def idempotency_key(self) -> str: ...


class DeliveryLog(Protocol):
    def get_delivery(self, repo: str, week: str, destination: str) -> DeliveryRecordLike | None: ...
    def record_intent(
        self, repo: str, week: str, destination: str, key: str
    ) -> DeliveryRecordLike: ...
    def mark_attempt(self, delivery_id: int) -> None: ...
    def record_sent(self, delivery_id: int, message_id: str) -> None: ...
    def record_failed(self, delivery_id: int, error: str) -> None: ...


@dataclass(frozen=True)
class Outcome:
    """What happened at one destination: posted, updated, reconciled, skipped or failed."""

    destination: str
    action: str
    message_id: str | None = None
    error: str | None = None


def idempotency_key(repo: str, week: str, destination: str) -> str:
    """A stable key per (repo, week, destination), also sent to platforms that dedupe by it."""
    return hashlib.sha256(f"{repo}|{week}|{destination}".encode()).hexdigest()[:32]


def split_destination(destination: str) -> tuple[str, str]:
    platform, _, target = destination.partition(":")
    return platform, target


def _deliver_one(
    digest: Digest, destination: str, sender: Sender, log: DeliveryLog, *, force: bool
) -> Outcome:
    _, target = split_destination(destination)
    key = idempotency_key(digest.repo, digest.week, destination)
    record = log.get_delivery(digest.repo, digest.week, destination)
    if record is None:
        record = log.record_intent(digest.repo, digest.week, destination, key)
    if record.status == "sent" and record.message_id:
        if not force:
            return Outcome(destination, "skipped", record.message_id)
        message_id = sender.update(target, record.message_id, digest)
        log.record_sent(record.id, message_id)
        return Outcome(destination, "updated", message_id)
    found = sender.find_posted(target, record.idempotency_key) if record.status != "sent" else None
    if found:
        log.record_sent(record.id, found)
        if force:
            found = sender.update(target, found, digest)
            log.record_sent(record.id, found)
        return Outcome(destination, "reconciled", found)
    log.mark_attempt(record.id)
    message_id = sender.post(target, digest, idempotency_key=record.idempotency_key)
    log.record_sent(record.id, message_id)
    return Outcome(destination, "posted", message_id)


def deliver(
    digest: Digest,
    destinations: list[str],
    senders: dict[str, Sender],
    log: DeliveryLog,
    *,
    force: bool = False,
) -> list[Outcome]:
    """Deliver `digest` to each destination once; one failing destination doesn't stop others."""
    outcomes: list[Outcome] = []
    for destination in dict.fromkeys(destinations):
        platform, _ = split_destination(destination)
        sender = senders.get(platform)
        if sender is None:
            outcomes.append(Outcome(destination, "failed", error=f"{platform} is not configured"))
            continue
        try:
            outcome = _deliver_one(digest, destination, sender, log, force=force)
        except ServiceError as exc:
            record = log.get_delivery(digest.repo, digest.week, destination)
            if record is not None and record.status != "sent":
                log.record_failed(record.id, exc.message)
            logger.warning(
                "delivery failed", extra={"destination": destination, "error": exc.message}
            )
            outcome = Outcome(destination, "failed", error=exc.message)
        outcomes.append(outcome)
    return outcomes
