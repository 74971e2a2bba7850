"""Idempotent delivery of a digest to chat destinations: record intent → send → record id.

A destination is `platform:target` (`slack:C0123`, `feishu:oc_abc`, `feishu-webhook:default`);
a Target adds the filter its card applies and the language it is written in. The log is written
before each send and after it, so a re-run, a restart or a second process never posts a
(repo, period, destination, filter) twice; `force` edits the earlier message in place instead.
A record left at `intent` (the process died between sending and recording) is reconciled with
the platform (`Sender.find_posted`) before anything is sent again. A sender that can't tell
whether such a send arrived (the Feishu custom-bot webhook: no message id, no dedupe) is not
resent on its own: the delivery becomes `unknown`, is logged, and `force` decides.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from service import operator_text
from service.core.models import Digest, Period
from service.errors import ServiceError, UnconfirmedSendError

logger = logging.getLogger(__name__)
UNKNOWN = "unknown"
UNCONFIRMED_REASON = (
    "an earlier send may have arrived (its process stopped before confirming it) and this "
    "destination cannot tell: not resent; `verl-week post --force` sends it again"
)


# Destinations renamed after deliveries were recorded under their old name: the log and the
# idempotency key keep the recorded name, so a card posted before an upgrade is found again and
# never posted twice. The Feishu custom-bot webhook was `webhook:feishu` until destinations
# named their platform plainly.
RECORDED_AS = {"feishu-webhook:default": "webhook:feishu"}
_CURRENT = {old: new for new, old in RECORDED_AS.items()}


def recorded_name(destination: str) -> str:
    """The name `destination`'s deliveries are logged (and keyed) under."""
    return RECORDED_AS.get(destination, destination)


def current_name(destination: str) -> str:
    """The destination a logged (or an old-style) name stands for today."""
    return _CURRENT.get(destination, destination)


class Sender(Protocol):
    """One platform's way to post and edit the weekly card."""

    platform: str
    # whether a send left unconfirmed by a dead process is found again (find_posted) or dropped
    # by the platform as a duplicate, so that sending it again is safe
    can_confirm: bool

    def post(
        self, target: str, digest: Digest, *, idempotency_key: str, language: str | None = None
    ) -> str:
        """Post the card (in `language`, else the sender's); returns the platform's message id."""
        ...

    def update(
        self, target: str, message_id: str, digest: Digest, *, language: str | None = None
    ) -> str:
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
    def get_delivery(
        self, repo: str, period: Period, destination: str, filter_text: str = ""
    ) -> DeliveryRecordLike | None: ...
    def record_intent(
        self, repo: str, period: Period, destination: str, key: str, filter_text: str = ""
    ) -> DeliveryRecordLike: ...
    def mark_attempt(self, delivery_id: int) -> None: ...
    def record_sent(self, delivery_id: int, message_id: str) -> None: ...
    def record_failed(self, delivery_id: int, error: str) -> None: ...
    def record_unknown(self, delivery_id: int, reason: str) -> None: ...


@dataclass(frozen=True)
class Target:
    """Where one card goes: a destination, the filter its digest is narrowed by ("" for the
    whole period) and its language (None: the sender's default)."""

    destination: str
    filter: str = ""
    language: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.destination, self.filter)

    @property
    def platform(self) -> str:
        """`slack` of `slack:C1`: the sender that posts it."""
        return self.destination.partition(":")[0]

    @property
    def channel(self) -> str:
        """`C1` of `slack:C1`: the target its sender is given."""
        return self.destination.partition(":")[2]

    def label(self) -> str:
        """`slack:C1`, or `slack:C1 [module:rollout]` for a filtered card."""
        return f"{self.destination} [{self.filter}]" if self.filter else self.destination


@dataclass(frozen=True)
class Outcome:
    """What happened at one destination: posted, updated, reconciled, skipped, unknown or
    failed."""

    destination: str
    action: str
    message_id: str | None = None
    error: str | None = None
    filter: str = ""


def idempotency_key(repo: str, period: Period, destination: str, filter_text: str = "") -> str:
    """A stable key per (repo, period, destination, filter), also sent to platforms that dedupe
    by it (a card of the whole period keeps the key it had before filters existed)."""
    raw = f"{repo}|{period.label}|{destination}" + (f"|{filter_text}" if filter_text else "")
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def is_unconfirmed(record: DeliveryRecordLike) -> bool:
    """A send was started and never recorded as done or failed (its process died), or an
    earlier run already found it so."""
    return record.status == UNKNOWN or (record.status == "intent" and record.attempts > 0)


def _leave_unknown(target: Target, record: DeliveryRecordLike, log: DeliveryLog) -> Outcome:
    log.record_unknown(record.id, UNCONFIRMED_REASON)
    logger.warning(
        operator_text.LOG_DELIVERY_UNKNOWN,
        extra={"destination": target.destination, "filter": target.filter,
               "attempts": record.attempts},
    )  # fmt: skip
    return Outcome(target.destination, UNKNOWN, error=UNCONFIRMED_REASON, filter=target.filter)


def _deliver_one(
    digest: Digest, target: Target, sender: Sender, log: DeliveryLog, *, force: bool
) -> Outcome:
    destination, flt, lang = target.destination, target.filter, target.language
    channel = target.channel
    logged = recorded_name(destination)
    key = idempotency_key(digest.repo, digest.window, logged, flt)
    record = log.get_delivery(digest.repo, digest.window, logged, flt)
    if record is None:
        record = log.record_intent(digest.repo, digest.window, logged, key, flt)
    if record.status == "sent" and record.message_id:
        if not force:
            return Outcome(destination, "skipped", record.message_id, filter=flt)
        message_id = sender.update(channel, record.message_id, digest, language=lang)
        log.record_sent(record.id, message_id)
        return Outcome(destination, "updated", message_id, filter=flt)
    found = sender.find_posted(channel, record.idempotency_key) if record.status != "sent" else None
    if found:
        log.record_sent(record.id, found)
        if force:
            found = sender.update(channel, found, digest, language=lang)
            log.record_sent(record.id, found)
        return Outcome(destination, "reconciled", found, filter=flt)
    if is_unconfirmed(record) and not sender.can_confirm and not force:
        return _leave_unknown(target, record, log)
    log.mark_attempt(record.id)
    message_id = sender.post(channel, digest, idempotency_key=record.idempotency_key, language=lang)
    log.record_sent(record.id, message_id)
    return Outcome(destination, "posted", message_id, filter=flt)


def as_targets(destinations: Sequence[str | Target]) -> list[Target]:
    """Targets, each (destination, filter) once; bare destination strings get the whole period."""
    found: dict[tuple[str, str], Target] = {}
    for item in destinations:
        target = item if isinstance(item, Target) else Target(current_name(item))
        found.setdefault(target.key, target)
    return list(found.values())


def _record_failure(digest: Digest, target: Target, log: DeliveryLog, exc: ServiceError) -> Outcome:
    """A failed send is retried by the next run; one that may have arrived is left unknown."""
    destination, flt = target.destination, target.filter
    unconfirmed = isinstance(exc, UnconfirmedSendError)
    record = log.get_delivery(digest.repo, digest.window, recorded_name(destination), flt)
    if record is not None and record.status != "sent":
        if unconfirmed:
            log.record_unknown(record.id, f"{exc.message}; {UNCONFIRMED_REASON}")
        else:
            log.record_failed(record.id, exc.message)
    logger.warning(
        operator_text.LOG_DELIVERY_FAILED,
        extra={"destination": destination, "filter": flt, "error": exc.message},
    )
    action = UNKNOWN if unconfirmed else "failed"
    return Outcome(destination, action, error=exc.message, filter=flt)


def deliver(
    digest: Digest,
    destinations: Sequence[str | Target],
    senders: dict[str, Sender],
    log: DeliveryLog,
    *,
    force: bool = False,
) -> list[Outcome]:
    """Deliver `digest` to each target once; one failing target doesn't stop the others.
    `digest` is already narrowed to the targets' filter (jobs groups targets by filter)."""
    outcomes: list[Outcome] = []
    for target in as_targets(destinations):
        destination, flt, platform = target.destination, target.filter, target.platform
        sender = senders.get(platform)
        if sender is None:
            outcomes.append(
                Outcome(destination, "failed", error=f"{platform} is not configured", filter=flt)
            )
            continue
        try:
            outcome = _deliver_one(digest, target, sender, log, force=force)
        except ServiceError as exc:
            outcome = _record_failure(digest, target, log, exc)
        outcomes.append(outcome)
    return outcomes
