"""What one chat completion returned, apart from the client (`openai` loads only with a model)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Completion:
    """The answer's text and what it cost."""

    content: str
    prompt_tokens: int
    completion_tokens: int
