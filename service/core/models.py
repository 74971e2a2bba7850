"""Core data types: pull requests, week windows, collected weeks and the Digest (versioned)."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from service.core.periods.kinds import Words

# 2: distinct changed files, gists that never repeat the title (files_gist), contributors
# with names and an unknown first-time flag, `unknown`, and the short report's narrative
# 3: gists read from structured bodies (lists, Overview / Key changes sections), relations
# between PRs (this week's and earlier stored weeks') and the week's stories
DIGEST_SCHEMA_VERSION = 3


class Model(BaseModel):
    """Base: immutable-by-convention, strict about unknown fields."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


# --- pull requests -------------------------------------------------------------------------


class FileStatus(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    MODIFIED = "modified"
    RENAMED = "renamed"
    COPIED = "copied"
    CHANGED = "changed"
    UNCHANGED = "unchanged"


class FileChange(Model):
    path: str
    status: FileStatus = FileStatus.MODIFIED
    additions: int = 0
    deletions: int = 0
    patch: str | None = None
    previous_path: str | None = None


class ReviewState(StrEnum):
    APPROVED = "APPROVED"
    CHANGES_REQUESTED = "CHANGES_REQUESTED"
    COMMENTED = "COMMENTED"
    DISMISSED = "DISMISSED"
    PENDING = "PENDING"


class Review(Model):
    state: ReviewState
    author: str | None = None
    body: str = ""  # what the reviewer wrote with the verdict ("" when nothing, or not fetched)
    submitted_at: datetime | None = None


class ReviewThread(Model):
    """An unresolved review thread at merge time, with its first comment."""

    path: str | None = None
    line: int | None = None
    author: str | None = None
    body: str = ""
    url: str | None = None
    created_at: datetime | None = None


class Comment(Model):
    """A comment of the PR's conversation, or an inline review comment (the first of a review
    thread, with the thread's file and line)."""

    author: str | None = None
    body: str = ""
    url: str | None = None
    created_at: datetime | None = None
    path: str | None = None
    line: int | None = None


class ReviewNote(Model):
    """One line of review discussion: who said it, what (one line), when, and in what
    capacity: `changes_requested` (a standing request), `thread` (unresolved) or `review`."""

    author: str | None = None
    text: str
    at: datetime | None = None
    kind: str = "review"
    path: str | None = None
    line: int | None = None


class Discussion(Model):
    """The review discussion that matters, as GitHub gave it at merge: reviewers whose change
    request still stood, how many threads were unresolved, and the reviewers' comments (one
    line each, newest first, at most `discussion.MAX_NOTES`)."""

    standing: list[str] = Field(default_factory=list)
    unresolved: int = 0
    notes: list[ReviewNote] = Field(default_factory=list)


class CheckState(StrEnum):
    SUCCESS = "SUCCESS"
    FAILURE = "FAILURE"
    PENDING = "PENDING"
    ERROR = "ERROR"
    EXPECTED = "EXPECTED"


class Check(Model):
    """One check run or status context that did not succeed."""

    name: str
    state: str
    url: str | None = None


class PullRequest(Model):
    """A merged pull request. `None` means GitHub did not tell (e.g. the git-history sample)."""

    number: int
    title: str
    body: str = ""
    url: str = ""
    author: str | None = None  # the GitHub login
    author_name: str | None = None  # the display name, when GitHub (or git) gave one
    author_association: str | None = None
    created_at: datetime
    merged_at: datetime
    additions: int = 0
    deletions: int = 0
    changed_files: int = 0
    files: list[FileChange] = Field(default_factory=list)
    patches_fetched: bool = False
    labels: list[str] | None = None
    reviews: list[Review] | None = None
    comments: int | None = None
    review_comments: int | None = None
    review_threads_total: int | None = None
    review_threads_unresolved: int | None = None
    unresolved_threads: list[ReviewThread] = Field(default_factory=list)
    # what people wrote besides their reviews' bodies (bots aside): the conversation's last
    # comments and each review thread's first comment, resolved or not
    conversation: list[Comment] = Field(default_factory=list)
    inline_comments: list[Comment] = Field(default_factory=list)
    review_decision: str | None = None
    check_state: CheckState | None = None
    failing_checks: list[Check] = Field(default_factory=list)
    merge_commit: str | None = None


# --- weeks and collection ----------------------------------------------------------------


class PeriodKind(StrEnum):
    """The built-in kinds of period (core/periods/): an ISO week, a calendar month, or any range of
    whole days. A period's `kind` is any registered kind's name, these or another (a release)."""

    WEEK = "week"
    MONTH = "month"
    RANGE = "range"


class Period(Model):
    """A reporting period in `timezone`: [start, end), local midnight boundaries, of a registered
    `kind` (core/periods/kinds.py). `label` is its key everywhere (store, URLs, locks):
    `2026-W04`, `2026-01` or `2026-01-12..2026-01-25`; the kind parses and writes its labels."""

    kind: str = PeriodKind.WEEK.value
    label: str
    timezone: str
    start: datetime
    end: datetime

    @property
    def first_day(self) -> date:
        return self.start.date()

    @property
    def last_day(self) -> date:
        return date.fromordinal(self.end.date().toordinal() - 1)

    def title(self, words: Words) -> str:
        """The period's name in a catalog's words (`Week 4 of 2026`, `2026 年 1 月`)."""
        from service.core.periods import title_of

        return title_of(self, words)

    def previous(self) -> Period:
        """The period before this one, as its kind counts (the trends' baseline)."""
        from service.core.periods import previous_period

        return previous_period(self)

    def weeks(self) -> list[str]:
        """The ISO week labels the period overlaps, oldest first."""
        from service.core.periods import weeks_of

        return weeks_of(self)

    @classmethod
    def of_label(cls, label: str, timezone: str) -> Period:
        """The period `label` names, by the kind whose labels look like it."""
        from service.core.periods import period_of_label

        return period_of_label(label, timezone)


class MissingItem(Model):
    """Something the collector could not get: a PR (number) or a whole page (number None)."""

    number: int | None = None
    what: str
    reason: str
    # the service's own account, worded by the catalogs (`report.incomplete.<key>`); `what` and
    # `reason` then hold the same in English for logs (an upstream error is shown as it came)
    key: str = ""
    params: dict[str, str | int] = Field(default_factory=dict)


class Completeness(Model):
    complete: bool = True
    missing: list[MissingItem] = Field(default_factory=list)


class CollectedPeriod(Model):
    """What the collector returns: every merged PR of the window, and what is missing, if any."""

    repo: str
    window: Period
    prs: list[PullRequest]
    completeness: Completeness = Field(default_factory=Completeness)
    source: str = "github"
    references_checked: bool = False
    remaining_references: dict[str, list[str]] = Field(default_factory=dict)
    private: bool | None = None  # what GitHub says of the repository; None: not asked
    github_id: int | None = None  # GitHub's id of the repository (the same after a move)
    # earlier names of the repository this week's digest says it moved from (transfer, rename)
    moved_from: list[str] = Field(default_factory=list)
    # older merged PRs the week's PRs name that are in no week the digest reads (title, merge
    # time; no files): what "#4280 broke this" points at
    older: list[PullRequest] = Field(default_factory=list)


# --- digest --------------------------------------------------------------------------------


class Severity(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class RiskKind(StrEnum):
    CORE_WITHOUT_TESTS = "core_without_tests"
    BREAKING = "breaking"
    MIGRATION = "migration"
    DANGEROUS_COMMAND = "dangerous_command"
    ABSOLUTE_PATH = "absolute_path"
    UNSET_SHELL_VAR = "unset_shell_var"
    FOLLOWUP = "followup"
    PRECISION = "precision"
    OPEN_CONCERNS = "open_concerns"
    SECRET = "secret"  # noqa: S105 - a risk kind, not a password
    DANGLING = "dangling"


class Factor(Model):
    """One term of an importance score: `points` with a one-line English `reason` key params."""

    name: str
    points: float
    reason: str
    params: dict[str, str | int | float] = Field(default_factory=dict)


class EvidenceSide(StrEnum):
    """Which side of the diff an evidence line is on: its number is in the new file (added,
    context) or in the old file (removed)."""

    ADDED = "added"
    REMOVED = "removed"
    CONTEXT = "context"


class Evidence(Model):
    """One piece of evidence: `path:line` on `side` of the PR's diff (None for the title or
    body), and the PR it belongs to when the risk rolls up several PRs."""

    path: str | None = None
    line: int | None = None
    snippet: str = Field("", max_length=200)
    side: EvidenceSide | None = None
    pr: int | None = None


class Risk(Model):
    """A risk: wording comes from the catalogs by `kind` (+ `rule`), filled from `params`."""

    kind: RiskKind
    rule: str = ""
    severity: Severity
    prs: list[int]
    evidence: list[Evidence] = Field(default_factory=list)
    params: dict[str, str | int | float] = Field(default_factory=dict)
    verified: bool | None = None
    # a roll-up (one rule firing on many PRs) keeps each PR's own risk here, worst first;
    # `prs` then lists them in that order and `evidence` is empty or a short selection
    members: list[Risk] = Field(default_factory=list)


class Statement(Model):
    """One sentence of narrative: a catalog key and its parameters (no words in core)."""

    key: str
    params: dict[str, str | int | float | list[int] | list[str]] = Field(default_factory=dict)
    prs: list[int] = Field(default_factory=list)


class ScoredPR(Model):
    number: int
    title: str
    url: str
    author: str | None = None
    author_name: str | None = None
    merged_at: datetime
    modules: list[str] = Field(default_factory=list)
    change_type: str = "other"
    breaking: bool = False
    category: str = "other"
    # what the body says the PR does ("" when it says nothing beyond the title); then
    # `files_gist` says what the files show instead
    gist: str = ""
    files_gist: Statement | None = None
    # the point as facts in no language (core/points.py): kind, what it adds or re-defaults, why
    facts: list[Statement] = Field(default_factory=list)
    # only comments and docstrings changed: nothing changes for users, never a top PR
    comment_only: bool = False
    additions: int = 0
    deletions: int = 0
    changed_files: int = 0
    files_removed: int = 0
    # the changed paths (and a rename's old path): what `path:` filters match
    paths: list[str] = Field(default_factory=list)
    score: float = 0.0
    factors: list[Factor] = Field(default_factory=list)
    risk_count: int = 0
    # review discussion at merge; None when GitHub gave no reviews (git history, REST)
    discussion: Discussion | None = None
    # the repository it was merged in, in a family digest ("" in a single repository's)
    repo: str = ""


class RelationKind(StrEnum):
    """How a PR of the week relates to an earlier PR (this week's or an earlier week's)."""

    REVERT = "revert"  # undoes it, fully or partly (whatever its title says)
    RELAND = "reland"  # brings back what a revert took out
    FIXES = "fixes"  # a fix that names it or reworks the lines it added
    FOLLOWS = "follows"  # names it: a follow-up, continuation, or work based on it
    # a PR of the same week that rewrites lines it added: what it added is no longer as merged
    SUPERSEDES = "supersedes"
    REWORKS = "reworks"  # rewrites lines it added
    SUBJECT = "subject"  # the same subject: a distinctive name in both titles, a shared file
    # across a family's repositories: code the PR moved out, taken up by the other PR
    MOVED = "moved"


class Relation(Model):
    """`pr` (merged this week) relates to the earlier-merged `other` as `kind` says; `week` is
    the other PR's week when that is an earlier one ("" for this week); `lines` counts the
    changed lines they share (0 when the relation is not about lines)."""

    pr: int
    other: int
    kind: RelationKind
    week: str = ""
    other_title: str = ""
    lines: int = 0


class Story(Model):
    """PRs of the week that belong together (a feature and its follow-ups, a change, its revert
    and its re-land, a migration and the fix of what it broke): `prs` most important first,
    `earlier` the PRs of earlier weeks it continues, `relations` what ties them, `kind` the
    story's category (`breaking`, `reverts`, or its lead PR's category)."""

    prs: list[int]
    kind: str
    earlier: list[int] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    weight: float = 0.0


class TrendBucket(Model):
    key: str
    count: int
    prs: list[int]
    previous: int | None = None

    @property
    def delta(self) -> int | None:
        return None if self.previous is None else self.count - self.previous


class Contributor(Model):
    """Keyed by GitHub login; `name` is the display name shown beside it. `first_time` is None
    when GitHub did not say."""

    login: str
    name: str | None = None
    prs: list[int]
    first_time: bool | None = False


class Trends(Model):
    # the JSON keeps the key `previous_week` for the previous period's label (as Digest `week`)
    model_config = ConfigDict(
        extra="forbid", defer_build=True, serialize_by_alias=True, validate_by_name=True
    )

    modules: list[TrendBucket] = Field(default_factory=list)
    types: list[TrendBucket] = Field(default_factory=list)
    labels: list[TrendBucket] = Field(default_factory=list)
    categories: list[TrendBucket] = Field(default_factory=list)
    contributors: list[Contributor] = Field(default_factory=list)
    # the label of the period before (None: none is stored)
    previous_period: str | None = Field(
        default=None,
        validation_alias=AliasChoices("previous_week", "previous_period"),
        serialization_alias="previous_week",
    )
    # the stored previous period's totals (what "more than last week" is held against); None
    # when no earlier period is stored
    previous_stats: Stats | None = None


class KeyChangeGroup(Model):
    category: str
    items: list[Statement]


class Narrative(Model):
    """The deterministic text by section; each field can be replaced on its own (e.g. by a
    checked model text). `module_table` holds the short report's module rows: each bucket's
    `prs` are the PRs that row names (the count may hold more)."""

    summary: list[Statement] = Field(default_factory=list)
    key_changes: list[KeyChangeGroup] = Field(default_factory=list)
    trends: list[Statement] = Field(default_factory=list)
    module_table: list[TrendBucket] = Field(default_factory=list)
    recommendations: list[Statement] = Field(default_factory=list)


class AnalysisItem(Model):
    """One sentence a model wrote and the checker kept, with the PRs it rests on; `theme` is
    the short label of a key-change bullet."""

    text: str
    prs: list[int] = Field(default_factory=list)
    theme: str = ""


class DroppedSentence(Model):
    """A sentence (or theme label) the checker refused, and each rule it broke (`rule: detail`)."""

    section: str
    text: str
    prs: list[int] = Field(default_factory=list)
    reasons: list[str]


class TokenUsage(Model):
    prompt: int = 0
    completion: int = 0


class Analysis(Model):
    """The model-written part of a digest: only checked sentences, per section; the audit list of
    what was dropped and why; which model and prompt wrote it and what it cost. The narrative
    stays the source of truth: a section too thin here is rendered from the narrative."""

    model: str
    prompt_version: str
    language: str
    headline: AnalysisItem | None = None
    summary: list[AnalysisItem] = Field(default_factory=list)
    key_changes: list[AnalysisItem] = Field(default_factory=list)
    pr_points: list[AnalysisItem] = Field(default_factory=list)
    trends: list[AnalysisItem] = Field(default_factory=list)
    recommendations: list[AnalysisItem] = Field(default_factory=list)
    review_notes: list[AnalysisItem] = Field(default_factory=list)
    dropped: list[DroppedSentence] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage)


class Stats(Model):
    prs: int = 0
    additions: int = 0
    deletions: int = 0
    changed_files: int = 0  # distinct paths over the week, not the per-PR sum
    # distinct authors the data names; a PR whose author it cannot name (none, or GitHub's
    # `ghost` for a deleted account) is counted in `unknown_authors`, never merged into one
    contributors: int = 0
    unknown_authors: int = 0
    first_time_contributors: int | None = 0  # None: GitHub did not say for anyone
    risks_high: int = 0
    risks_medium: int = 0
    risks_low: int = 0


class RepoTotals(Model):
    """One repository's figures in a family digest."""

    prs: int = 0
    additions: int = 0
    deletions: int = 0
    files: int = 0
    contributors: int = 0
    risks: int = 0


class RepoPR(Model):
    """One of a repository's top PRs: its own number, the reference the report writes
    (`#6200`, `verl-omni#25`) and its key in the family digest."""

    number: int
    key: int
    ref: str
    title: str
    url: str = ""


class RepoPart(Model):
    """One repository of a family digest: its figures, top PRs and key changes (a
    repository with no merged PR in the period is `quiet`)."""

    repo: str
    totals: RepoTotals = Field(default_factory=RepoTotals)
    top: list[RepoPR] = Field(default_factory=list)
    quiet: bool = False
    key_changes: list[KeyChangeGroup] = Field(default_factory=list)
    # the names GitHub knew it by before a move (transfer or rename), told once
    moved_from: list[str] = Field(default_factory=list)


class Crossing(Model):
    """A tie between repositories of a family: PR `pr` (a key) moved code to `repo`, or
    names it (`kind`: moved, fixes, follows, names); `prs` are that repository's PRs (keys)
    that received, continued or match it, `week` theirs when stored earlier."""

    pr: int
    kind: str
    repo: str
    prs: list[int] = Field(default_factory=list)
    week: str = ""


class Digest(Model):
    """The weekly digest: everything a renderer needs, JSON round-trippable."""

    # the JSON keeps the key `week` for the period's label (reports read by users, stored digests)
    model_config = ConfigDict(
        extra="forbid", defer_build=True, serialize_by_alias=True, validate_by_name=True
    )

    schema_version: int = DIGEST_SCHEMA_VERSION
    repo: str
    # the label of the period told (`2026-W04`, `2026-01`, `2026-01-12..2026-01-25`)
    period: str = Field(validation_alias=AliasChoices("week", "period"), serialization_alias="week")
    timezone: str
    start: datetime
    end: datetime
    language: str = "zh"
    generated_at: datetime
    source: str = "github"
    stats: Stats = Field(default_factory=Stats)
    prs: list[ScoredPR] = Field(default_factory=list)
    risks: list[Risk] = Field(default_factory=list)
    trends: Trends = Field(default_factory=Trends)
    narrative: Narrative = Field(default_factory=Narrative)
    # how the week's PRs relate to each other and to earlier weeks' PRs, and the stories they
    # make (core/relations.py, core/stories.py)
    relations: list[Relation] = Field(default_factory=list)
    stories: list[Story] = Field(default_factory=list)
    completeness: Completeness = Field(default_factory=Completeness)
    discussion_url: str = ""
    # facts GitHub did not give for this week's PRs ("reviews", "checks", "labels",
    # "first_time"): the report says so once instead of one alarm per PR
    unknown: list[str] = Field(default_factory=list)
    # the filter this digest was narrowed by (`module:rollout severity:high`); "" for the week
    filter: str = ""
    # sentences an optional language model wrote, each checked against the facts (issue 11),
    # in the digest's language; and the same asked in each other language a card is posted in
    analysis: Analysis | None = None
    other_analyses: list[Analysis] = Field(default_factory=list)
    # the names the repository had before GitHub reported it as `repo` (said once, in the
    # first digest after the move)
    moved_from: list[str] = Field(default_factory=list)
    # a family digest (core/family.py): each repository in order, the first the primary, and
    # the ties found between them; empty for a single repository
    repos: list[RepoPart] = Field(default_factory=list)
    crossings: list[Crossing] = Field(default_factory=list)

    @property
    def window(self) -> Period:
        """The period the digest tells as a value, its kind that of the kind whose labels look
        like `period` (core/periods/kinds.py)."""
        from service.core.periods import kind_of

        kind = kind_of(self.period) or PeriodKind.WEEK.value
        return Period(
            kind=kind, label=self.period, timezone=self.timezone, start=self.start, end=self.end
        )

    @property
    def repo_names(self) -> list[str]:
        """The family's repositories in order (empty for a single repository's digest)."""
        return [part.repo for part in self.repos]

    def pr(self, number: int) -> ScoredPR | None:
        return next((p for p in self.prs if p.number == number), None)

    def analysis_for(self, language: str) -> Analysis | None:
        """The model's checked narrative written in `language`, if the model wrote one."""
        every = [self.analysis] if self.analysis is not None else []
        return next((a for a in [*every, *self.other_analyses] if a.language == language), None)
