"""What a command answer can be: one model per kind, each naming its `kind`.

`Answer` is their base: a verb's own module may add a kind (commands/verbs/), and the registry
reads any answer back from JSON by its `kind` (`registry.answer_adapter()`).

Every answer carries its envelope (`AnswerBase`: where it is about, in which language, shown to
whom, and the report it links). The one-sentence kinds carry a catalog key and its parameters
(`Said`), never words; a failure's cause is a `Sentence` of its own (`reason`), so the user reads
both in their language.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from enum import StrEnum
from typing import Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from service.core.models import (
    AnalysisItem,
    Digest,
    Discussion,
    Period,
    PullRequest,
    Relation,
    Risk,
    ScoredPR,
    Severity,
)

Params = dict[str, str | int]
R = TypeVar("R")


class AnswerKind(StrEnum):
    HELP = "help"
    USAGE_ERROR = "usage_error"
    RISKS = "risks"
    PR = "pr"
    TOP = "top"
    SUMMARY = "summary"
    TRENDS = "trends"
    WEEK = "week"
    NO_DIGEST = "no_digest"
    NOT_FOUND = "not_found"
    PR_LOOKUP = "pr_lookup"
    DENIED = "denied"
    RATE_LIMITED = "rate_limited"
    REGENERATE_STARTED = "regenerate_started"
    REGENERATE_BUSY = "regenerate_busy"
    REGENERATE_DONE = "regenerate_done"
    REGENERATE_FAILED = "regenerate_failed"
    SUBSCRIBED = "subscribed"
    ALREADY_SUBSCRIBED = "already_subscribed"
    UNSUBSCRIBED = "unsubscribed"
    NOT_SUBSCRIBED = "not_subscribed"
    SUBSCRIPTIONS = "subscriptions"
    NO_MATCH = "no_match"
    ERROR = "error"


class Sentence(BaseModel):
    """A catalog sentence: its key and parameters (a cause inside another sentence)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    key: str
    params: Params = Field(default_factory=dict)


class SubscriptionView(BaseModel):
    """One subscription as a `subscriptions` answer lists it."""

    model_config = ConfigDict(extra="forbid")
    repo: str
    filter: str = ""
    language: str = ""
    cadence: str = "weekly"


class Renderings(dict[Hashable, object]):
    """Messages kept for the answers made from one view of a cached digest: a memo, no part of
    an answer's value, so two answers compare equal whatever each keeps (or none)."""

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, Renderings)

    __hash__ = None  # a dict: unhashable, as before


class AnswerBase(BaseModel):
    """The envelope of every answer."""

    model_config = ConfigDict(extra="forbid")
    # the kind of answer (an AnswerKind, or a verb's own): each model narrows it to its own
    kind: str
    # the language to answer in (`lang:`, the channel's, or the default); "" for the default
    language: str = ""
    public: bool = False
    repo: str = ""
    # the period the answer is about (a week, a month, a range), as the engine resolved it or
    # the digest told it; None for none (help, an error, a PR as GitHub has it now)
    period: Period | None = None
    report_url: str = ""
    # the filter the answer applies, in the grammar (`module:rollout severity:high`)
    filter: str = ""
    # a family's repositories in order (core/scope.py), to name its PRs: empty for one
    repos: list[str] = Field(default_factory=list)
    # where this answer's renderings are kept (`keep_renderings`); not part of the answer
    _renderings: Renderings | None = PrivateAttr(default=None)

    def keep_renderings(self, kept: Renderings) -> None:
        """Keep this answer's renderings in `kept`, shared by every answer made from the same
        view of a cached digest (a `risks` or `top` asked again): the verb guarantees that
        such answers differ at most in the envelope, which is part of the key."""
        self._renderings = kept

    def rendered(self, target: str, lang: str, render: Callable[[], R]) -> R:
        """`render()` for `target` in `lang`, worked out once per envelope when kept."""
        kept = self._renderings
        if kept is None:
            return render()
        envelope = (self.kind, self.language, self.public, self.repo, self._period_key())
        key = (target, lang, *envelope, self.report_url, self.filter, tuple(self.repos))
        if key not in kept:  # two threads at once: the same message, twice
            kept[key] = render()
        return cast(R, kept[key])

    def _period_key(self) -> tuple[str, str] | None:
        """The period as part of a renderings key (a Period is a value, not hashable)."""
        period = self.period
        return None if period is None else (period.kind, period.label)


class Said(AnswerBase):
    """An answer that is one catalog sentence (errors, denials, confirmations)."""

    key: str
    params: Params = Field(default_factory=dict)


class HelpAnswer(AnswerBase):
    kind: Literal[AnswerKind.HELP] = AnswerKind.HELP
    usage: list[str] = Field(default_factory=list)


class UsageErrorAnswer(Said):
    """Bad command text: what is wrong, and the usage of the verb concerned (or of all)."""

    kind: Literal[AnswerKind.USAGE_ERROR] = AnswerKind.USAGE_ERROR
    usage: list[str] = Field(default_factory=list)
    verb: str = ""


class RisksAnswer(AnswerBase):
    kind: Literal[AnswerKind.RISKS] = AnswerKind.RISKS
    risks: list[Risk] = Field(default_factory=list)
    severity: Severity | None = None
    prs: list[ScoredPR] = Field(default_factory=list)


class PrAnswer(AnswerBase):
    """`pr N`: a PR of a stored digest (`pr`), or as GitHub has it now (`live_pr`)."""

    kind: Literal[AnswerKind.PR] = AnswerKind.PR
    number: int
    pr: ScoredPR | None = None
    live_pr: PullRequest | None = None
    risks: list[Risk] = Field(default_factory=list)
    # the language model's checked 要点 of the PR and the model that wrote it
    point: AnalysisItem | None = None
    point_model: str = ""
    # the review discussion at merge (None: GitHub gave no reviews)
    discussion: Discussion | None = None
    # what the digest found it builds on: reverts, fixes, follow-ups of earlier PRs (older
    # weeks' too, by number and title)
    relations: list[Relation] = Field(default_factory=list)


class TopAnswer(AnswerBase):
    kind: Literal[AnswerKind.TOP] = AnswerKind.TOP
    prs: list[ScoredPR] = Field(default_factory=list)


class DigestViewAnswer(AnswerBase):
    """`summary`, `trends` and `week`: a view of one (possibly filtered) digest."""

    kind: Literal[AnswerKind.SUMMARY, AnswerKind.TRENDS, AnswerKind.WEEK]
    digest: Digest


class NoDigestAnswer(Said):
    kind: Literal[AnswerKind.NO_DIGEST] = AnswerKind.NO_DIGEST
    weeks: list[str] = Field(default_factory=list)


class NoMatchAnswer(Said):
    """Nothing of the week (or not the PR asked about) matches the filter."""

    kind: Literal[AnswerKind.NO_MATCH] = AnswerKind.NO_MATCH
    number: int | None = None


class NoticeAnswer(Said):
    """A one-sentence answer about the caller's request: refused, limited, not found, or a
    PR asked of GitHub (`number`), an admin verb refused (`verb`)."""

    kind: Literal[
        AnswerKind.DENIED, AnswerKind.RATE_LIMITED, AnswerKind.NOT_FOUND, AnswerKind.PR_LOOKUP
    ]
    number: int | None = None
    verb: str = ""


class RegenerateAnswer(Said):
    """Regenerate started, busy, done or failed (`reason`: why it failed)."""

    kind: Literal[
        AnswerKind.REGENERATE_STARTED,
        AnswerKind.REGENERATE_BUSY,
        AnswerKind.REGENERATE_DONE,
        AnswerKind.REGENERATE_FAILED,
    ]
    reason: Sentence | None = None


class SubscriptionAnswer(Said):
    kind: Literal[
        AnswerKind.SUBSCRIBED,
        AnswerKind.ALREADY_SUBSCRIBED,
        AnswerKind.UNSUBSCRIBED,
        AnswerKind.NOT_SUBSCRIBED,
    ]


class SubscriptionsAnswer(Said):
    kind: Literal[AnswerKind.SUBSCRIPTIONS] = AnswerKind.SUBSCRIPTIONS
    subscriptions: list[SubscriptionView] = Field(default_factory=list)


class ErrorAnswer(Said):
    """The service could not answer: `reason` says why (in the user's language); `incident`
    names the log line of an unexpected failure."""

    kind: Literal[AnswerKind.ERROR] = AnswerKind.ERROR
    number: int | None = None
    reason: Sentence | None = None
    incident: str = ""


# every answer: a model of this module or of a verb's own module
Answer = AnswerBase
# the kinds of this module (a verb's module adds its own: commands/registry.py)
ANSWER_MODELS: tuple[type[AnswerBase], ...] = (
    HelpAnswer,
    UsageErrorAnswer,
    RisksAnswer,
    PrAnswer,
    TopAnswer,
    DigestViewAnswer,
    NoDigestAnswer,
    NoMatchAnswer,
    NoticeAnswer,
    RegenerateAnswer,
    SubscriptionAnswer,
    SubscriptionsAnswer,
    ErrorAnswer,
)
# the kinds that are one catalog sentence (`Said`): every renderer words them the same way
SaidAnswer = (
    UsageErrorAnswer
    | NoDigestAnswer
    | NoMatchAnswer
    | NoticeAnswer
    | RegenerateAnswer
    | SubscriptionAnswer
    | SubscriptionsAnswer
    | ErrorAnswer
)
