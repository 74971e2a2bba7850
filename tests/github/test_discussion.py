"""Review discussion from GitHub to the `pr N` answer and the risk section: FakeGitHub serves
2026-W04 with reviews and threads on #4280 (git history has none), the real collector reads
them, the digest keeps them, `pr 4280` shows them on Slack, Feishu and the terminal, escaped."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from service.commands.answer import AnswerKind, Caller, EngineContext, answer_text
from service.commands.kinds import PrAnswer
from service.core.digest import build_digest
from service.core.discussion import MAX_NOTES, discussion, one_line
from service.core.models import CollectedPeriod, Digest, PullRequest, Review, ReviewState
from service.core.profile import RepoProfile
from service.github.collect import collect_week
from service.github.http import GitHubHttp
from service.render import feishu, slack
from service.render.text import render_answer_text
from service.store.repository import Store
from tests.fakes.github import FakeGitHub
from tests.github.conftest import REPO, w04

NOW = datetime(2026, 2, 2, tzinfo=UTC)
USER = Caller(user_id="U1", platform="slack", channel="C1")
HOSTILE = "<!channel> drop `rollout.mode=sync`? <at id=all></at>"


def _discuss(github: FakeGitHub) -> None:
    pr = github.prs[4280]
    pr.reviews = [
        (
            "COMMENTED",
            "bob",
            "Nit: the bucket size needs a note in the docs.",
            "2026-01-20T01:00:00Z",
        ),
        (
            "CHANGES_REQUESTED",
            "alice",
            f"{HOSTILE}\nSecond line is not shown.",
            "2026-01-20T02:00:00Z",
        ),
        ("APPROVED", "carol", "", "2026-01-20T03:00:00Z"),
    ]
    pr.review_decision = "CHANGES_REQUESTED"
    pr.conversation = [
        {"body": "CI report: 3 passed", "author": "codecov", "bot": True},
        {
            "body": "Does this break the sglang path? cc @alice",
            "author": "erin",
            "created_at": "2026-01-19T22:00:00Z",
        },
        {"body": "No, sglang keeps its own adapter.", "author": "jianjunzhong"},
    ]
    pr.threads = [
        {
            "resolved": True,
            "path": "verl/workers/rollout/vllm_rollout/vllm_rollout.py",
            "line": 64,
            "body": "see inline: *ServerAdapter* needs a docstring",
            "author": "bob",
            "created_at": "2026-01-19T23:00:00Z",
        },
        {
            "resolved": False,
            "path": "verl/workers/rollout/vllm_rollout/vllm_async_server.py",
            "line": 88,
            "body": "> quoted\nIs VERL_VLLM_ZMQ_ADDRESSES still read by anyone?",
            "author": "dave",
            "created_at": "2026-01-20T04:00:00Z",
        },
    ]


@pytest.fixture
def collected(
    github: FakeGitHub, make_http: Callable[..., GitHubHttp], verl_profile: RepoProfile
) -> CollectedPeriod:
    _discuss(github)
    return collect_week(make_http(), REPO, w04(), verl_profile, check_references=False)


def test_collector_reads_conversation_and_inline_comments(collected: CollectedPeriod) -> None:
    pr = next(p for p in collected.prs if p.number == 4280)
    assert [(c.author, c.path) for c in pr.conversation] == [("erin", None), ("jianjunzhong", None)]
    assert [(c.author, c.path, c.line) for c in pr.inline_comments] == [
        ("bob", "verl/workers/rollout/vllm_rollout/vllm_rollout.py", 64),
        ("dave", "verl/workers/rollout/vllm_rollout/vllm_async_server.py", 88),
    ]


def test_collector_reads_review_bodies_and_thread_times(collected: CollectedPeriod) -> None:
    pr = next(p for p in collected.prs if p.number == 4280)
    assert pr.reviews is not None
    alice = next(r for r in pr.reviews if r.author == "alice")
    assert alice.body.startswith("<!channel>")
    assert alice.submitted_at == datetime(2026, 1, 20, 2, tzinfo=UTC)
    (thread,) = pr.unresolved_threads
    assert thread.created_at == datetime(2026, 1, 20, 4, tzinfo=UTC)


def test_discussion_is_standing_requests_threads_and_comments_newest_first(
    collected: CollectedPeriod,
) -> None:
    pr = next(p for p in collected.prs if p.number == 4280)
    found = discussion(pr)
    assert found is not None
    assert found.standing == ["alice"]
    assert found.unresolved == 1
    assert [(n.author, n.kind, n.text) for n in found.notes] == [
        ("dave", "thread", "Is VERL_VLLM_ZMQ_ADDRESSES still read by anyone?"),
        ("alice", "changes_requested", HOSTILE),
        ("bob", "review", "Nit: the bucket size needs a note in the docs."),
        # an inline comment of a resolved thread, with its file and line
        ("bob", "inline", "see inline: *ServerAdapter* needs a docstring"),
        # the conversation: the bot's report and the author's own reply are not reviewers'
        ("erin", "comment", "Does this break the sglang path? cc @alice"),
    ]
    inline = found.notes[3]
    assert (inline.path, inline.line) == ("verl/workers/rollout/vllm_rollout/vllm_rollout.py", 64)
    # git history gives no reviews: no discussion, not an empty one
    quiet = next(p for p in collected.prs if p.number == 4970)
    assert discussion(quiet.model_copy(update={"reviews": None})) is None


def test_at_most_five_notes_and_what_stands_is_kept() -> None:
    at = [datetime(2026, 1, 1, h, tzinfo=UTC) for h in range(8)]
    reviews = [
        Review(state=ReviewState.COMMENTED, author=f"r{i}", body=f"comment {i}", submitted_at=at[i])
        for i in range(1, 8)
    ]
    reviews.append(
        Review(state=ReviewState.CHANGES_REQUESTED, author="old", body="no", submitted_at=at[0])
    )
    pr = PullRequest(number=1, title="t", created_at=at[0], merged_at=at[7], reviews=reviews)
    found = discussion(pr)
    assert found is not None
    assert len(found.notes) == MAX_NOTES
    assert found.notes[-1].author == "old"  # the oldest, kept because it still stands
    assert [n.author for n in found.notes[:4]] == ["r7", "r6", "r5", "r4"]
    assert one_line("x" * 500).endswith("…")


def test_changes_requested_risk_quotes_the_reviewer(
    collected: CollectedPeriod, verl_profile: RepoProfile
) -> None:
    digest = build_digest(collected, verl_profile, language="en", now=NOW)
    (risk,) = [r for r in digest.risks if r.rule == "changes_requested"]
    assert risk.prs == [4280]
    assert risk.evidence[0].snippet == f"alice: {HOSTILE}"
    # the report shows the words, escaped
    from service.render.report import render_markdown

    text = render_markdown(digest, "en")
    assert "alice: <!channel>" not in text
    assert "alice:" in text


@pytest.fixture
def answered(collected: CollectedPeriod, verl_profile: RepoProfile, store: Store) -> Digest:
    digest = build_digest(collected, verl_profile, language="en", now=NOW)
    store.save_digest(digest)
    return digest


def _ctx(store: Store) -> EngineContext:
    return EngineContext(
        reader=store,
        repos=[REPO],
        language="en",
        timezone="Asia/Shanghai",
        clock=lambda: NOW,
        admins=frozenset(),
        subscriptions=store,
        report_url=lambda repo, week: f"http://reports.test/reports/{repo}/{week}",
    )


def test_pr_answer_shows_the_discussion_on_every_surface(answered: Digest, store: Store) -> None:
    reply = answer_text("pr 4280", USER, _ctx(store))
    assert reply.kind is AnswerKind.PR
    assert isinstance(reply, PrAnswer)
    assert reply.discussion is not None
    assert reply.discussion.standing == ["alice"]
    message = slack.render_answer(reply, "en")
    blocks = json.dumps(message.blocks)
    assert "Review discussion" in blocks
    assert "Change requests still standing at merge: alice" in blocks
    assert "dave (unresolved, verl/workers/rollout/vllm_rollout/vllm_async_server.py:88)" in blocks
    assert "<!channel>" not in blocks
    assert "&lt;!channel&gt;" in blocks
    card = json.dumps(feishu.render_answer(reply, "en"), ensure_ascii=False)
    assert "Review discussion" in card
    assert "<at id=all></at>" not in card
    assert "alice (requested changes)" in card
    text = render_answer_text(reply, "en", answered)
    assert "Review discussion:" in text
    assert "- bob: Nit: the bucket size needs a note in the docs." in text
    assert text.index("dave (unresolved") < text.index("alice (requested") < text.index("bob:")
    assert "- bob (verl/workers/rollout/vllm_rollout/vllm_rollout.py:64): see inline" in text
    assert "- erin: Does this break the sglang path? cc @alice" in text
    assert "No, sglang keeps" not in blocks  # the author's own reply


def test_pr_without_reviews_says_nothing_about_them(answered: Digest, store: Store) -> None:
    reply = answer_text("pr 4970", USER, _ctx(store))
    assert isinstance(reply, PrAnswer)
    assert reply.discussion is not None  # GitHub gave reviews (none): said once
    assert "Reviewers left no written comments." in render_answer_text(reply, "en", answered)
