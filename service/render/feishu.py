"""Digest and command answers → Feishu card JSON 2.0 dicts (templates/feishu/), already fitted.

Pure: the templates lay the card out, the catalogs give the words, `escape.feishu_text` makes
untrusted text inert, `feishu_limits.fit_feishu` makes the result fit the request body limit.
"""

from __future__ import annotations

import functools
import json
from datetime import date
from typing import TYPE_CHECKING, Any

import jinja2

from service.commands import buttons
from service.commands.kinds import (
    Answer,
    AnswerKind,
    DigestViewAnswer,
    NoDigestAnswer,
    PrAnswer,
    RisksAnswer,
    Said,
    SubscriptionsAnswer,
    TopAnswer,
)
from service.core.models import Digest, Evidence, Risk, Severity
from service.core.ranking import top_prs, worst_severity
from service.render import answers, escape
from service.render.card_sizes import (
    CARD_RISK_LINES,
    CARD_RISK_PRS,
    EVIDENCE_PER_RISK,
    TITLE_CHARS,
    TOP_MODULES,
    TOP_PRS,
)
from service.render.environment import WEEK, environment, kind_told, label_of, translator
from service.render.feishu_limits import Via, fit_feishu
from service.render.limits import FEISHU
from service.render.speaker import Speaker, Target
from service.render.speaking.naming import named_by_family
from service.render.speaking.params import plain_prs
from service.render.text import answer_markdown

if TYPE_CHECKING:
    from service.render.strings import Translator

# the weekly card's points are cut at a clause to POINT_CHARS (the rest: render/cards.py)
POINT_CHARS = 120
PLATFORM = "feishu"
# the card of a one-sentence answer, and of a kind Feishu has no view of its own for
SAID = "feishu/said.json.j2"
ANSWER_RISKS = 10
# `module: n PRs (±d)`: a module's (or a change type's) line of the card
MODULE_LINE = "feishu.digest.module_line"

# Card header colours (§3.4 `template` values): the week's highest risk, or the answer's mood.
COLOUR_BY_SEVERITY = {Severity.HIGH: "red", Severity.MEDIUM: "orange", Severity.LOW: "yellow"}
COLOUR_NO_RISK = "green"
COLOUR_NEUTRAL = "blue"
COLOUR_REFUSED = "grey"
COLOUR_FAILED = "red"
COLOUR_BY_KIND: dict[str, str] = {
    AnswerKind.USAGE_ERROR: COLOUR_REFUSED,
    AnswerKind.DENIED: COLOUR_REFUSED,
    AnswerKind.RATE_LIMITED: COLOUR_REFUSED,
    AnswerKind.NOT_FOUND: COLOUR_REFUSED,
    AnswerKind.NO_DIGEST: COLOUR_REFUSED,
    AnswerKind.ERROR: COLOUR_FAILED,
    AnswerKind.REGENERATE_FAILED: COLOUR_FAILED,
    AnswerKind.REGENERATE_DONE: COLOUR_NO_RISK,
}


def say(tr: Translator, key: str, params: dict[str, Any]) -> str:
    """A catalog sentence with every untrusted parameter escaped for card markdown (a toast)."""
    return Speaker(None, tr, FEISHU_TARGET).plain(key, params)


def header_colour(risks: list[Risk]) -> str:
    """Red/orange/yellow by the highest risk severity; green when there is none."""
    worst = worst_severity(risks)
    return COLOUR_NO_RISK if worst is None else COLOUR_BY_SEVERITY[worst]


def _title(text: str) -> str:
    return escape.feishu_text(escape.truncate(escape.one_line(text), TITLE_CHARS))


def _url(url: str, fallback: str = "") -> str:
    return escape.md_url(escape.safe_url(url, fallback))


def _where(evidence: Evidence) -> str:
    where = evidence.path or ""
    if evidence.line is not None:
        where = f"{where}:{evidence.line}"
    return escape.feishu_text(where)


def _feishu_link(url: str, label: str) -> str:
    return f"[{label}]({_url(url)})"


# How a Speaker writes for card markdown: escaped text, [label](url) links, identifiers as
# escaped text (an entity inside a code span would show as typed).
FEISHU_TARGET = Target(text=escape.feishu_text, link=_feishu_link, code=escape.feishu_text)


def speaker(digest: Digest | None, lang: str, kind: str = WEEK) -> Speaker:
    """The Speaker that renders `digest`'s statements, points and risks as card markdown (None:
    an answer's sentences only), in the words of a period of `kind`."""
    return Speaker(digest, translator(lang, kind), FEISHU_TARGET)


@functools.lru_cache(maxsize=1)
def card_environment() -> jinja2.Environment:
    """The shared Environment plus the Feishu filters (an overlay: same loader, same cache)."""
    env = environment().overlay()
    env.filters.update(
        feishu_text=escape.feishu_text,
        feishu_title=_title,
        feishu_url=_url,
        feishu_prs=plain_prs,
        feishu_where=_where,
    )
    return env


def _note(content: str) -> dict[str, Any]:
    return {"tag": "markdown", "content": content, "text_align": "left"}


def with_notes(
    card: dict[str, Any], s: Speaker, answer: Answer | None, filter_text: str
) -> dict[str, Any]:
    """The filter a card applies (first in its body) and a subscriptions list (after the
    sentence), before the card is fitted."""
    elements = card["body"]["elements"]
    if isinstance(answer, SubscriptionsAnswer) and answer.subscriptions:
        lines = [f"· {s.subscription_line(v)}" for v in answer.subscriptions]
        elements.insert(1, _note("\n".join(lines)))
    if filter_text:
        line = s.tr.t("cmd.answer.filter_line", filter=escape.feishu_text(filter_text))
        elements.insert(0, _note(line))
    return card


def _render(template: str, tr: Translator, **context: Any) -> dict[str, Any]:
    lang = tr.lang
    voice = Speaker(None, tr, FEISHU_TARGET)
    context.setdefault("say", lambda s: voice.plain(s.key, s.params))
    text = (
        card_environment()
        .get_template(template)
        .render(
            t=tr.t,
            lang=lang,
            risk_say=voice.risk_line,
            factor_reason=voice.factor_reason,
            module_line=lambda bucket: voice.bucket_line(bucket, MODULE_LINE),
            type_line=lambda bucket: voice.bucket_line(bucket, MODULE_LINE, named="type"),
            top_modules=TOP_MODULES,
            evidence_per_risk=EVIDENCE_PER_RISK,
            **context,
        )
    )
    card: dict[str, Any] = json.loads(text)
    return card


def card_actions(digest: Digest) -> list[dict[str, Any]]:
    """The card's callback buttons (commands/buttons.card_values) in Feishu's shape: each with
    its style and the `value` object it sends back in card.action.trigger."""
    return [
        {"verb": verb, "style": button.style, "value": value}
        for verb, button, value in buttons.card_values(digest.repo, digest.window, digest.filter)
    ]


def _fit(card: dict[str, Any], tr: Translator, url: str, via: Via) -> dict[str, Any]:
    more = tr.t("feishu.fit.more")
    return fit_feishu(card, via=via, more_url=url, more_text=more, limits=FEISHU)


@named_by_family(lambda digest, **_k: digest.repo_names)
def render_digest(
    digest: Digest, *, report_url: str, lang: str, via: Via = "app"
) -> dict[str, Any]:
    """The weekly card for `digest`, fitted to the body limit of `via` (app bot or webhook): the
    summary with linked PRs, the top PRs with their point, one line per risk item (at most
    CARD_RISK_LINES), the header coloured by the worst risk item."""
    url = escape.safe_url(report_url)
    s = speaker(digest, lang, digest.window.kind)
    groups = s.risk_groups()
    card = _render(
        "feishu/digest.json.j2",
        s.tr,
        digest=digest,
        s=s,
        say=s.say,
        colour=header_colour(digest.risks),
        prs=top_prs(digest, TOP_PRS),
        groups=groups[:CARD_RISK_LINES],
        more_groups=max(len(groups) - CARD_RISK_LINES, 0),
        risk_prs=CARD_RISK_PRS,
        point_chars=POINT_CHARS,
        modules=digest.trends.modules[:TOP_MODULES],
        report_url=url,
        last_day=date.fromordinal(digest.end.date().toordinal() - 1).isoformat(),
        actions=card_actions(digest),
        **s.card_context(),
    )
    card = with_notes(card, s, None, digest.filter)
    return _fit(card, s.tr, url, via)


def _answer_title(tr: Translator, answer: Answer) -> str:
    """`feishu.answer.title.<kind>` where the catalog has one (a verb's own kind may add it),
    else the default title."""
    key = f"feishu.answer.title.{answer.kind}"
    return tr.t(
        key if tr.has(key) else "feishu.answer.title.default",
        repo=answer.repo or "-",
        week=label_of(answer.period) or "-",
        count=len(answer.prs) if isinstance(answer, TopAnswer) else 0,
    )


@answers.view(PLATFORM, AnswerKind.RISKS)
def _risks(answer: RisksAnswer, s: Speaker, url: str) -> dict[str, Any]:
    shown = answer.risks[:ANSWER_RISKS]
    return _render(
        "feishu/risks.json.j2",
        s.tr,
        answer=answer,
        colour=header_colour(answer.risks),
        risks=shown,
        hidden=len(answer.risks) - len(shown),
        report_url=url,
    )


@answers.view(PLATFORM, AnswerKind.PR)
def _pr(answer: PrAnswer, s: Speaker, url: str) -> dict[str, Any]:
    return _render(
        "feishu/pr.json.j2",
        s.tr,
        point=s.point_line(answer.point, answer.point_model, answer.number),
        discussion=s.discussion_lines(answer.discussion),
        relations=s.relation_lines(answer.relations),
        answer=answer,
        pr=answer.pr,
        live=answer.live_pr,
        colour=header_colour(answer.risks),
        report_url=url,
    )


def _own_template(template: str, answer: Answer, s: Speaker, url: str) -> dict[str, Any]:
    """An answer shown by a template of its kind's own (render/answers.py): help, usage errors,
    top, summary, trends, a verb's own kind; `feishu/said.json.j2` for the one-sentence kinds."""
    voice = (
        Speaker(answer.digest, s.tr, FEISHU_TARGET)
        if isinstance(answer, DigestViewAnswer)
        else None
    )
    speak = {"say": voice.say} if voice else {}
    return _render(
        template,
        s.tr,
        **speak,
        answer=answer,
        sentence=s.answer_sentence(answer) if isinstance(answer, Said) else "",
        weeks=answer.weeks if isinstance(answer, NoDigestAnswer) else [],
        report_url=url,
        colour=COLOUR_BY_KIND.get(answer.kind, COLOUR_NEUTRAL),
        title=_answer_title(s.tr, answer),
    )


def _plain(answer: Answer, s: Speaker, url: str) -> dict[str, Any]:
    """A kind Feishu has no view for: the plain-text answer (escaped Markdown) as the body."""
    text = answer_markdown(answer, s.tr.lang).strip()
    return _render(
        "feishu/said.json.j2",
        s.tr,
        answer=answer,
        sentence=text,
        weeks=[],
        report_url=url,
        colour=COLOUR_NEUTRAL,
        title=_answer_title(s.tr, answer),
    )


def _card(answer: Answer, s: Speaker, url: str) -> dict[str, Any]:
    """The kind's registered view, else its own template, else its sentence, else the plain
    text."""
    view = answers.view_for(PLATFORM, answer.kind)
    if view is not None:
        card: dict[str, Any] = view(answer, s, url)
        return card
    template = answers.template_for(PLATFORM, answer.kind)
    if template is not None:
        return _own_template(template, answer, s, url)
    if isinstance(answer, Said):
        return _own_template(SAID, answer, s, url)
    return _plain(answer, s, url)


@named_by_family(lambda answer, *_a, **_k: answer.repos)
def render_answer(answer: Answer, lang: str, *, via: Via = "app") -> dict[str, Any]:
    """A command answer (a reply, or the card of a card.action.trigger response) as a card."""
    url = escape.safe_url(answer.report_url)
    if isinstance(answer, DigestViewAnswer) and answer.kind is AnswerKind.WEEK:
        return render_digest(answer.digest, report_url=url, lang=lang, via=via)
    s = speaker(None, lang, kind_told(answer.period))
    card = with_notes(_card(answer, s, url), s, answer, answer.filter)
    return _fit(card, s.tr, url, via)
