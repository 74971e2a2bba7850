"""The Speaker: the one filler of catalog sentences, for every target (Markdown, HTML, Slack
mrkdwn, Feishu card markdown) and language — reports, cards and command answers alike. Its
helpers live in `service.render.speaking`, one subject per module."""

from __future__ import annotations

from service.render.speaking.answers import AnswerWords
from service.render.speaking.family import FamilyWords
from service.render.speaking.params import CODE_PARAMS, repo_web_url, same_person
from service.render.speaking.risks import SNIPPET_CHARS, SPELLED_OUT, RiskWords
from service.render.speaking.scores import ScoreWords
from service.render.speaking.targets import HTML, MARKDOWN, Target
from service.render.speaking.trends import TrendWords
from service.render.speaking.voice import BESIDE_TABLE
from service.render.speaking.written import WrittenWords

__all__ = [
    "BESIDE_TABLE",
    "CODE_PARAMS",
    "HTML",
    "MARKDOWN",
    "SNIPPET_CHARS",
    "SPELLED_OUT",
    "Speaker",
    "Target",
    "repo_web_url",
    "same_person",
]


class Speaker(WrittenWords, RiskWords, ScoreWords, TrendWords, AnswerWords, FamilyWords):
    """Turns catalog keys and digest values into safe text for one target and language.
    `Speaker(None, tr, target)`: a Speaker of command answers (nothing of a week to link)."""
