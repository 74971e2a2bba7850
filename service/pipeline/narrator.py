"""The model-written part of a week's digest: facts → the cached answer or one model call →
the checker. Only checked sentences reach the digest; the deterministic narrative stays.

An answer is cached by the prompt's data (hashed), the model, the prompt version and the
language: rebuilding unchanged data, answering a command or posting to a second channel never
calls the model again, and new data calls it once. A card posted in another language than the
digest's gets the narrative asked in that language (one cached call per language). Any failure
(no answer within LLM_TIMEOUT_SECONDS, a refusal, an answer that is not JSON for the schema)
leaves the digest without analysis, with one log line saying why: the week goes out, on time,
deterministic.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from service import operator_text
from service.core.analyst.checker import check_answer
from service.core.analyst.facts import PeriodFacts, build_facts, content_hash, facts_json
from service.core.analyst.family_refs import keyed_drafts
from service.core.analyst.schema import Draft, InvalidAnswerError, parse_answer, response_format
from service.core.analyst.verdicts import NOTE_SECTION
from service.core.models import Analysis, Digest, PullRequest, TokenUsage
from service.errors import ModelError, StoreUnavailableError
from service.llm.completion import Completion
from service.pipeline.verifier import Verifier
from service.render.prompt import prompt_messages, prompt_version
from service.render.strings import LANGUAGES

logger = logging.getLogger(__name__)


class ModelClient(Protocol):
    """What the narrator needs of service.llm.client.ModelClient."""

    model: str

    def complete(
        self, messages: list[dict[str, str]], response_format: dict[str, Any]
    ) -> Completion: ...


class CachedAnswer(Protocol):
    """An answer's text and cost (a Completion, or the store's StoredAnswer)."""

    @property
    def content(self) -> str: ...
    @property
    def prompt_tokens(self) -> int: ...
    @property
    def completion_tokens(self) -> int: ...


class AnswerCache(Protocol):
    """Cached answers (service.store.repository.Store satisfies it)."""

    def get_model_answer(
        self, content_hash: str, model: str, prompt_version: str, language: str
    ) -> CachedAnswer | None: ...

    def save_model_answer(
        self,
        content_hash: str,
        model: str,
        prompt_version: str,
        language: str,
        answer: Any,
    ) -> None: ...


@dataclass(frozen=True)
class _Asked:
    """What is asked of the model for one week, and the key its answer is cached under."""

    facts: PeriodFacts
    data: str
    version: str

    @property
    def key(self) -> tuple[str, str, str]:
        return content_hash(self.data), self.version, self.facts.language


# (outcome, seconds, prompt tokens, completion tokens) of one model call: Metrics.model_call
CallObserver = Callable[[str, float, int, int], None]


@dataclass
class Narrator:
    """Writes a digest's Analysis with a model, through the answer cache; `observe` hears of
    every call made (not of answers read from the cache)."""

    client: ModelClient
    cache: AnswerCache
    observe: CallObserver | None = None
    verifier: Verifier | None = None

    @property
    def settings_key(self) -> str:
        """What the narrative depends on besides the week: the model and every language's
        prompt version (a stored digest written under other ones is built again)."""
        versions = ",".join(prompt_version(lang) for lang in LANGUAGES)
        verifier = f"\0verify:{self.verifier.settings_key}" if self.verifier is not None else ""
        return f"{self.client.model}\0{versions}{verifier}"

    def analyse(
        self, digest: Digest, prs: Sequence[PullRequest], language: str | None = None
    ) -> Analysis | None:
        """The checked analysis of `digest` in `language` (default: the digest's), or None
        (logged once) when the model gave none."""
        started = time.monotonic()
        facts = build_facts(digest, prs, language)
        asked = _Asked(facts, facts_json(facts), prompt_version(facts.language, bool(facts.repos)))
        where = {"repo": digest.repo, "week": digest.period, "language": facts.language}
        try:
            answer, cached = self._answer(asked)
        except ModelError as exc:
            self._observed("failed", started)
            self._skipped(exc, where)
            return None
        try:
            drafts = keyed_drafts(
                parse_answer(answer.content, digest.repo_names), digest.repo_names
            )
        except InvalidAnswerError as exc:
            self._observed("invalid", started, answer)  # never cached: it was a call
            self._skipped(exc, where)
            return None
        if not cached:
            self._observed("ok", started, answer)
            self._remember(asked, answer)
        analysis = self._checked(drafts, asked, answer)
        if self.verifier is not None:  # never raises: a failing verifier drops nothing
            analysis = self.verifier.verified(analysis, drafts, asked.facts)
        dropped = sum(d.section != NOTE_SECTION for d in analysis.dropped)
        logger.info(
            operator_text.LOG_MODEL_NARRATIVE,
            extra={
                **where,
                "model": self.client.model,
                "cached": cached,
                # token counts (named `usage*`: the log masks any `*token*=` value)
                "usage": 0 if cached else answer.prompt_tokens + answer.completion_tokens,
                "usage_prompt": answer.prompt_tokens,
                "usage_completion": answer.completion_tokens,
                "kept": len(drafts) - dropped,
                "dropped": dropped,
                "seconds": round(time.monotonic() - started, 3),
            },
        )
        return analysis

    def _skipped(self, exc: ModelError | InvalidAnswerError, where: dict[str, str]) -> None:
        logger.warning(
            operator_text.LOG_MODEL_SKIPPED,
            exc,
            extra={**where, "model": self.client.model},
        )

    def _observed(self, outcome: str, started: float, answer: CachedAnswer | None = None) -> None:
        """Count one call the model was asked: ok, invalid (not JSON for the schema) or failed
        (no answer within the deadline, or refused); with the tokens it cost."""
        if self.observe is None:
            return
        tokens = (answer.prompt_tokens, answer.completion_tokens) if answer else (0, 0)
        self.observe(outcome, time.monotonic() - started, *tokens)

    def _answer(self, asked: _Asked) -> tuple[CachedAnswer, bool]:
        data_hash, version, language = asked.key
        hit = self._cached(data_hash, version, language)
        if hit is not None:
            return hit, True
        messages = prompt_messages(asked.facts, asked.data)
        return self.client.complete(messages, response_format(bool(asked.facts.repos))), False

    def _cached(self, data_hash: str, version: str, language: str) -> CachedAnswer | None:
        try:
            return self.cache.get_model_answer(data_hash, self.client.model, version, language)
        except StoreUnavailableError as exc:
            logger.warning(operator_text.LOG_MODEL_CACHE_UNREADABLE, exc.message)
            return None

    def _remember(self, asked: _Asked, answer: CachedAnswer) -> None:
        """Cache an answer that parsed (a malformed one is asked again next time)."""
        data_hash, version, language = asked.key
        try:
            self.cache.save_model_answer(data_hash, self.client.model, version, language, answer)
        except StoreUnavailableError as exc:
            logger.warning(operator_text.LOG_MODEL_NOT_CACHED, exc.message)

    def _checked(self, drafts: list[Draft], asked: _Asked, answer: CachedAnswer) -> Analysis:
        usage = TokenUsage(prompt=answer.prompt_tokens, completion=answer.completion_tokens)
        return check_answer(
            drafts,
            asked.facts,
            model=self.client.model,
            prompt_version=asked.version,
            usage=usage,
        )
