"""The analyst's cache: a language model's answer (the narrative, the verifier's verdicts) to the
same data, model, prompt version and language (satisfies pipeline.narrator.AnswerCache and
pipeline.verifier.VerdictCache)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from service.store import tables as t
from service.store.aggregate import Aggregate, utc_now
from service.store.translate import translated
from service.store.upsert import upsert


@dataclass(frozen=True)
class StoredAnswer:
    """A language model's answer as cached: its text and what it cost."""

    content: str
    prompt_tokens: int
    completion_tokens: int


class ModelAnswers(Aggregate):
    """The `model_answers` table."""

    @translated
    def get_model_answer(
        self, content_hash: str, model: str, prompt_version: str, language: str
    ) -> StoredAnswer | None:
        """The cached answer to the same data, model, prompt version and language, if any."""
        c = t.model_answers.c
        query = select(c.answer, c.prompt_tokens, c.completion_tokens).where(
            c.content_hash == content_hash,
            c.model == model,
            c.prompt_version == prompt_version,
            c.language == language,
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return StoredAnswer(row[0], int(row[1]), int(row[2])) if row else None

    @translated
    def save_model_answer(
        self,
        content_hash: str,
        model: str,
        prompt_version: str,
        language: str,
        answer: StoredAnswer,
    ) -> None:
        """Keep (or replace) the answer to this data, model, prompt version and language."""
        row = {
            "content_hash": content_hash,
            "model": model,
            "prompt_version": prompt_version,
            "language": language,
            "answer": answer.content,
            "prompt_tokens": answer.prompt_tokens,
            "completion_tokens": answer.completion_tokens,
            "created_at": utc_now(),
        }
        keys = ("content_hash", "model", "prompt_version", "language")
        with self._tx() as conn:
            upsert(conn, t.model_answers, keys, [row])
