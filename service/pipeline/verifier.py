"""The verification pass by a model (issue 26 §3): each sentence the checker's rules kept is
judged entailed / contradicted / not enough information against its quotes and the cited PRs'
facts, in batches bounded in tokens (core/analyst/verdicts.py); only entailed ones stay.

Each batch's verdicts are cached in the narrative's answer cache, keyed by the batch's data
(so a changed answer asks again), the verifier model and the verify prompt's version. The pass
is bounded by LLM_VERIFY_TIMEOUT_SECONDS: a batch asked after that, or one that fails (timeout,
5xx, a refused key, junk), is not judged, and its sentences stay; the log line and the audit
list say so. Nothing here raises: the digest always goes out.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from service import operator_text
from service.core.analyst.deferral import deferred_sentences, restored
from service.core.analyst.facts import PeriodFacts, content_hash
from service.core.analyst.schema import Draft
from service.core.analyst.verdicts import (
    InvalidVerdictsError,
    Judgement,
    Sentence,
    apply_verdicts,
    batch_data,
    batches,
    parse_verdicts,
    response_format,
    sentences_of,
    unjudged_note,
)
from service.core.models import Analysis
from service.errors import ModelError, StoreUnavailableError
from service.llm.completion import Completion
from service.render.strings import LANGUAGES
from service.render.verify_prompt import verify_messages, verify_version

logger = logging.getLogger(__name__)


class VerifyClient(Protocol):
    """What the verifier needs of service.llm.client.ModelClient."""

    model: str

    def complete(
        self, messages: list[dict[str, str]], response_format: dict[str, Any]
    ) -> Completion: ...


class CachedVerdicts(Protocol):
    @property
    def content(self) -> str: ...
    @property
    def prompt_tokens(self) -> int: ...
    @property
    def completion_tokens(self) -> int: ...


class VerdictCache(Protocol):
    """The narrative's answer cache (service.store.repository.Store satisfies it)."""

    def get_model_answer(
        self, content_hash: str, model: str, prompt_version: str, language: str
    ) -> CachedVerdicts | None: ...

    def save_model_answer(
        self, content_hash: str, model: str, prompt_version: str, language: str, answer: Any
    ) -> None: ...


@dataclass
class Judged:
    """What one pass found: verdicts by sentence id, why batches went unjudged, the tokens
    its calls cost and how many batches came from the cache."""

    verdicts: dict[int, Judgement] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    tokens: int = 0
    cached: int = 0
    asked: int = 0


@dataclass
class Verifier:
    client: VerifyClient
    cache: VerdictCache
    timeout_seconds: float
    max_tokens: int
    clock: Callable[[], float] = time.monotonic

    @property
    def settings_key(self) -> str:
        """What the verdicts depend on besides the answer: the verifier model and prompts."""
        versions = ",".join(verify_version(lang) for lang in LANGUAGES)
        return f"{self.client.model}\0{versions}"

    def verified(self, analysis: Analysis, drafts: Sequence[Draft], facts: PeriodFacts) -> Analysis:
        """`analysis` with only the sentences the verifier judged entailed (or did not judge),
        and the dropped ones the rules could only not confirm back when it judged them entailed
        (core/analyst/deferral.py)."""
        sentences = sentences_of(analysis, drafts)
        deferred = deferred_sentences(analysis, drafts, len(sentences) + 1)
        if not sentences and not deferred:
            return analysis
        judged = self.judge([*sentences, *deferred], facts)
        unjudged = [s for s in sentences if s.id not in judged.verdicts]
        note = unjudged_note(len(unjudged), judged.failures[0]) if judged.failures else None
        analysis = apply_verdicts(analysis, sentences, judged.verdicts, note)
        return restored(analysis, deferred, judged.verdicts, drafts)

    def judge(self, sentences: Sequence[Sentence], facts: PeriodFacts) -> Judged:
        """The verdicts on `sentences`, batch by batch until LLM_VERIFY_TIMEOUT_SECONDS; logs
        the pass (and, once, why sentences went unjudged)."""
        started = self.clock()
        deadline = started + self.timeout_seconds
        out = Judged()
        for batch in batches(sentences, facts, self.max_tokens):
            if self.clock() >= deadline:
                out.failures.append(f"LLM_VERIFY_TIMEOUT_SECONDS={self.timeout_seconds:g} spent")
                break
            try:
                found = self._batch(batch, facts, out)
            except (ModelError, InvalidVerdictsError) as exc:
                out.failures.append(str(exc))
                continue
            out.verdicts |= found
            if len(found) < len(batch):
                missing = len(batch) - len(found)
                out.failures.append(f"no verdict on {missing} of {len(batch)} sentences")
        self._log(sentences, facts, out, started)
        return out

    def _batch(
        self, batch: list[Sentence], facts: PeriodFacts, out: Judged
    ) -> dict[int, Judgement]:
        data = batch_data(batch, facts)
        key = (content_hash(data), self.client.model, verify_version(facts.language))
        hit = self._cached(*key, facts.language)
        if hit is not None:
            out.cached += 1
            return parse_verdicts(hit.content, batch)
        messages = verify_messages(facts.repo, facts.period, facts.language, data, facts.repos)
        out.asked += 1
        answer = self.client.complete(messages, response_format())
        out.tokens += answer.prompt_tokens + answer.completion_tokens
        try:
            verdicts = parse_verdicts(answer.content, batch)
        except InvalidVerdictsError as exc:
            why = f"the verifier's answer is not JSON for the schema: {exc}"
            raise InvalidVerdictsError(why) from None
        self._remember(*key, facts.language, answer)
        return verdicts

    def _cached(
        self, data_hash: str, model: str, version: str, language: str
    ) -> CachedVerdicts | None:
        try:
            return self.cache.get_model_answer(data_hash, model, version, language)
        except StoreUnavailableError as exc:
            logger.warning(operator_text.LOG_MODEL_CACHE_UNREADABLE, exc.message)
            return None

    def _remember(
        self, data_hash: str, model: str, version: str, language: str, answer: Completion
    ) -> None:
        try:
            self.cache.save_model_answer(data_hash, model, version, language, answer)
        except StoreUnavailableError as exc:
            logger.warning(operator_text.LOG_MODEL_NOT_CACHED, exc.message)

    def _log(
        self, sentences: Sequence[Sentence], facts: PeriodFacts, out: Judged, started: float
    ) -> None:
        where = {"repo": facts.repo, "week": facts.period, "language": facts.language}
        extra = {**where, "model": self.client.model}
        unjudged = sum(s.id not in out.verdicts for s in sentences)
        if out.failures:
            logger.warning(
                operator_text.LOG_MODEL_VERIFY_FAILED, unjudged, out.failures[0], extra=extra
            )
        refused = sum(not j.entailed for j in out.verdicts.values())
        logger.info(
            operator_text.LOG_MODEL_VERIFICATION,
            extra={
                **extra,
                "sentences": len(sentences),
                "entailed": len(out.verdicts) - refused,
                "refused": refused,
                "unjudged": unjudged,
                "asked": out.asked,
                "cached": out.cached,
                "usage": out.tokens,  # named `usage`: the log masks any `*token*=` value
                "seconds": round(self.clock() - started, 3),
            },
        )
