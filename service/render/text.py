"""Command answers as Markdown text for the terminal (`verl-week risks`, `verl-week pr N`), and
the fallback of every platform for a kind it has no view of its own for (render/answers.py)."""

from __future__ import annotations

from service.commands.kinds import (
    Answer,
    DigestViewAnswer,
    NoMatchAnswer,
    PrAnswer,
    Said,
    UsageErrorAnswer,
)
from service.core.models import Digest
from service.render import answers
from service.render.environment import environment, kind_told, translator
from service.render.escape import md_text
from service.render.speaker import MARKDOWN, Speaker
from service.render.speaking.naming import named_by_family

# a one-sentence answer, and an answer of a kind with no text view of its own
PLATFORM = "text"
SAID = "text/said.md.j2"
UNSUPPORTED = "text/unsupported.md.j2"


def text_template(answer: Answer) -> str:
    """The kind's own template (render/answers.py), else the one-sentence one for a `Said`
    kind, else the line that says the kind is not shown as text."""
    own = answers.template_for(PLATFORM, answer.kind)
    if own is not None:
        return own
    return SAID if isinstance(answer, Said) else UNSUPPORTED


@named_by_family(lambda answer, *_a, **_k: answer.repos)
def render_answer_text(answer: Answer, lang: str, digest: Digest | None = None) -> str:
    """The answer the chat would give, as Markdown; `digest` links PRs when the answer has none."""
    text = answer_markdown(answer, lang, digest)
    if not answer.filter or isinstance(answer, NoMatchAnswer):
        return text
    # the filter the answer applies, under its heading
    tr = translator(lang, kind_told(answer.period))
    line = tr.t("cmd.answer.filter_line", filter=md_text(answer.filter))
    heading, newline, rest = text.lstrip("\n").partition("\n")
    return f"{heading}{newline}\n{line}\n{rest}" if heading.startswith("#") else f"{line}\n\n{text}"


def answer_markdown(answer: Answer, lang: str, digest: Digest | None = None) -> str:
    """The answer's own Markdown, without the filter line (a platform that shows the text as
    its fallback says the filter its own way)."""
    tr = translator(lang, kind_told(answer.period))
    source = answer.digest if isinstance(answer, DigestViewAnswer) else digest
    speaker = Speaker(source, tr, MARKDOWN)
    return (
        environment()
        .get_template(text_template(answer))
        .render(
            t=tr.t,
            has=tr.has,
            lang=lang,
            a=answer,
            s=speaker,
            linked=source is not None,
            sentence=speaker.answer_sentence(answer) if isinstance(answer, Said) else "",
            usage=answer.usage if isinstance(answer, UsageErrorAnswer) else [],
            discussion=speaker.discussion_lines(
                answer.discussion if isinstance(answer, PrAnswer) else None
            ),
            relations=speaker.relation_lines(
                answer.relations if isinstance(answer, PrAnswer) else []
            ),
        )
    )
