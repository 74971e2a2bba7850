"""Idempotent delivery of a digest to chat destinations: record intent → send → record id.

A destination is `platform:target` (`slack:C0123`, `feishu:oc_abc`, `webhook:feishu`). The log
is written before each send and after it, so a re-run, a restart or a second process never
posts a (repo, week, destination) twice; `force` edits the earlier message in place instead.
A record left at `intent` (the process died between sending and recording) is reconciled with
the platform (`Sender.find_posted`) before anything is sent again. A sender that can't tell
whether such a send arrived (the Feishu custom-bot webhook: no message id, no dedupe) is not
resent on its own: the delivery becomes `unknown`, is logged, and `force` decides.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Protocol

from service.core.models import Digest
from service.errors import ServiceError, UnconfirmedSendError

logger = logging.getLogger(__name__)
UNKNOWN = "unknown"
UNCONFIRMED_REASON = (
    "an earlier send may have arrived (its process stopped before confirming it) and this "
    "destination cannot tell: not resent; `verl-week post --force` sends it again"
)


class Sender(Protocol):
    """One platform's way to post and edit the weekly card."""

    platform: str
    # whether a send left unconfirmed by a dead process is found again (find_posted) or dropped
    # by the platform as a duplicate, so that sending it again is safe
    can_confirm: bool

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
    @property
    def attempts(self) -> int: ...


class DeliveryLog(Protocol):
    def get_delivery(self, repo: str, week: str, destination: str) -> DeliveryRecordLike | None: ...
    def record_intent(
        self, repo: str, week: str, destination: str, key: str
    ) -> DeliveryRecordLike: ...
    def mark_attempt(self, delivery_id: int) -> None: ...
    def record_sent(self, delivery_id: int, message_id: str) -> None: ...
    def record_failed(self, delivery_id: int, error: str) -> None: ...
    def record_unknown(self, delivery_id: int, reason: str) -> None: ...


@dataclass(frozen=True)
class Outcome:
    """What happened at one destination: posted, updated, reconciled, skipped, unknown or
    failed."""

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


def is_unconfirmed(record: DeliveryRecordLike) -> bool:
    """A send was started and never recorded as done or failed (its process died), or an
    earlier run already found it so."""
    return record.status == UNKNOWN or (record.status == "intent" and record.attempts > 0)


def _leave_unknown(destination: str, record: DeliveryRecordLike, log: DeliveryLog) -> Outcome:
    log.record_unknown(record.id, UNCONFIRMED_REASON)
    logger.warning(
        "delivery outcome unknown: not resent",
        extra={"destination": destination, "attempts": record.attempts},
    )
    return Outcome(destination, UNKNOWN, error=UNCONFIRMED_REASON)


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
    if is_unconfirmed(record) and not sender.can_confirm and not force:
        return _leave_unknown(destination, record, log)
    log.mark_attempt(record.id)
    message_id = sender.post(target, digest, idempotency_key=record.idempotency_key)
    log.record_sent(record.id, message_id)
    return Outcome(destination, "posted", message_id)


def _record_failure(
    digest: Digest, destination: str, log: DeliveryLog, exc: ServiceError
) -> Outcome:
    """A failed send is retried by the next run; one that may have arrived is left unknown."""
    unconfirmed = isinstance(exc, UnconfirmedSendError)
    record = log.get_delivery(digest.repo, digest.week, destination)
    if record is not None and record.status != "sent":
        if unconfirmed:
            log.record_unknown(record.id, f"{exc.message}; {UNCONFIRMED_REASON}")
        else:
            log.record_failed(record.id, exc.message)
    logger.warning("delivery failed", extra={"destination": destination, "error": exc.message})
    return Outcome(destination, UNKNOWN if unconfirmed else "failed", error=exc.message)


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
            outcome = _record_failure(digest, destination, log, exc)
        outcomes.append(outcome)
    return outcomes
