"""Digest and command answers → Slack Block Kit messages (templates/slack/), already fitted.

Pure: the templates lay the blocks out, the catalogs give the words, `escape.slack_text` makes
untrusted text inert (no `<!channel>`, `<@U…>` or `<url|label>` survives), and
`limits.fit_slack` makes the result fit every Block Kit limit.
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
    ErrorAnswer,
    HelpAnswer,
    NoDigestAnswer,
    PrAnswer,
    RisksAnswer,
    Said,
    SubscriptionsAnswer,
    TopAnswer,
    UsageErrorAnswer,
)
from service.core.models import Digest, TrendBucket
from service.core.ranking import ranked_factors, top_prs
from service.render import answers, escape
from service.render.card_sizes import (
    CARD_RISK_LINES,
    CARD_RISK_PRS,
    EVIDENCE_PER_RISK,
    TITLE_CHARS,
    TOP_MODULES,
    TOP_PRS,
    TOP_RISKS,
)
from service.render.environment import WEEK, environment, kind_told, label_of, translator
from service.render.limits import SLACK, SlackMessage, fit_slack
from service.render.speaker import Speaker, Target
from service.render.speaking.naming import named_by_family
from service.render.speaking.params import plain_prs
from service.render.text import answer_markdown

if TYPE_CHECKING:
    from service.render.strings import Translator

__all__ = ["SlackMessage", "render_answer", "render_digest"]

# what the Slack card and answers show beyond what every card shows (render/cards.py)
TOP_TYPES = 6
ANSWER_RISKS = 12
KEEP_RISKS = 3
FACTORS_SHOWN = 8
GIST_CHARS = 160
CODE_CHARS = 120
BAR_WIDTH = 10
BAR = "▇"
PLATFORM = "slack"
# a card button's action_id is the prefix and its verb (the adapter reads the verb back)
ACTION_PREFIX = "verl_week_"
ACTION_REPORT = ACTION_PREFIX + "report"


def action_id(verb: str) -> str:
    return ACTION_PREFIX + verb


ACTION_RISKS = action_id("risks")
ACTION_REGENERATE = action_id("regenerate")


def slack_title(text: str) -> str:
    """An untrusted title: one line, cut, escaped."""
    return escape.slack_text(escape.truncate(escape.one_line(text), TITLE_CHARS))


def slack_gist(text: str) -> str:
    return escape.slack_text(escape.truncate(escape.one_line(text), GIST_CHARS))


def slack_code(text: str) -> str:
    """Untrusted text shown as inline code (backticks removed so the span can't be broken)."""
    line = escape.truncate(escape.one_line(text).replace("`", "'"), CODE_CHARS)
    return f"`{escape.slack_text(line)}`" if line else ""


@jinja2.pass_context
def slack_url_filter(context: jinja2.runtime.Context, url: str) -> str:
    """`slack_url` in a template: an unsafe URL links to the template's report page instead."""
    return slack_url(url, str(context.get("report_url") or ""))


def slack_url(url: str, fallback: str = "") -> str:
    """A URL safe inside `<url|label>`: http(s) only (else `fallback`), and `|` / `>` can't end
    the link early."""
    return escape.safe_url(url, escape.safe_url(fallback)).replace("|", "%7C")


def _slack_link(url: str, label: str) -> str:
    return f"<{slack_url(url)}|{label}>"


def _slack_inline(text: str) -> str:
    return escape.slack_text(escape.one_line(text))


def _slack_code(text: str) -> str:
    line = escape.one_line(text).replace("`", "'")
    return f"`{escape.slack_text(line)}`" if line else ""


# How a Speaker writes for mrkdwn: escaped text, <url|label> links, `code`.
SLACK_TARGET = Target(
    text=_slack_inline, link=_slack_link, code=_slack_code, plain=escape.slack_text
)
# a risk without catalog wording of its own (an old digest's rule) is named by its kind
RISK_FALLBACK = "slack.risk.generic"


def speaker(digest: Digest | None, lang: str, kind: str = WEEK) -> Speaker:
    """The Speaker that renders `digest`'s statements, points and risks as mrkdwn (None: an
    answer's sentences only)."""
    return Speaker(digest, translator(lang, kind), SLACK_TARGET)


@functools.lru_cache(maxsize=1)
def slack_environment() -> jinja2.Environment:
    """The shared Environment plus the Slack filters (an overlay: same loader, same cache)."""
    env = environment().overlay()
    env.filters.update(
        slack_title=slack_title,
        slack_gist=slack_gist,
        slack_code=slack_code,
        slack_url=slack_url_filter,
        slack_prs=plain_prs,
    )
    return env


def filter_block(tr: Translator, filter_text: str) -> dict[str, Any]:
    """The context line a filtered card or answer carries: which filter it applies."""
    line = tr.t("cmd.answer.filter_line", filter=slack_code(filter_text))
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": line}]}


def _render(
    template: str, tr: Translator, *, more_url: str = "", filter_text: str = "", **context: Any
) -> SlackMessage:
    lang = tr.lang
    voice = Speaker(None, tr, SLACK_TARGET)
    context.setdefault("say", lambda s: voice.plain(s.key, s.params))
    text = (
        slack_environment()
        .get_template(template)
        .render(
            t=tr.t,
            has=tr.has,
            lang=lang,
            risk_say=lambda r, field: voice.risk_line(r, field, RISK_FALLBACK),
            action_report=ACTION_REPORT,
            **context,
        )
    )
    raw = json.loads(text)
    if filter_text:  # right under the heading, never dropped when the card is condensed
        raw["blocks"].insert(1, filter_block(tr, filter_text))
    return fit_slack(SlackMessage(raw["text"], raw["blocks"]), more_url=more_url, limits=SLACK)


def bars(buckets: list[TrendBucket], prefix: str = "") -> dict[str, str]:
    """A text bar per bucket, the largest `BAR_WIDTH` long."""
    top = max((b.count for b in buckets), default=0)
    return {
        prefix + b.key: BAR * max(1, round(b.count * BAR_WIDTH / top)) if top else ""
        for b in buckets
    }


def _last_day(digest: Digest) -> date:
    return date.fromordinal(digest.end.date().toordinal() - 1)


@named_by_family(lambda digest, **_k: digest.repo_names)
def render_digest(digest: Digest, *, report_url: str, lang: str) -> SlackMessage:
    """The weekly card for `digest`, within every Block Kit limit however large the week: the
    summary with linked PRs, the top PRs with their point, one line per risk item (at most
    CARD_RISK_LINES), the busiest modules."""
    url = escape.safe_url(report_url)
    s = speaker(digest, lang, digest.window.kind)
    groups = s.risk_groups()
    modules = digest.trends.modules[:TOP_MODULES]
    return _render(
        "slack/digest.json.j2",
        s.tr,
        more_url=url,
        filter_text=digest.filter,
        digest=digest,
        s=s,
        say=s.say,
        prs=top_prs(digest, TOP_PRS),
        groups=groups[:CARD_RISK_LINES],
        more_groups=max(len(groups) - CARD_RISK_LINES, 0),
        risk_prs=CARD_RISK_PRS,
        point_chars=GIST_CHARS,
        modules=modules,
        bars=bars(modules),
        report_url=url,
        discussion_url=escape.safe_url(digest.discussion_url),
        first_day=digest.start.date().isoformat(),
        last_day=_last_day(digest).isoformat(),
        actions=card_actions(digest),
        **s.card_context(),
    )


def card_actions(digest: Digest) -> list[dict[str, str]]:
    """The card's action buttons (commands/buttons.card_values) in Slack's shape: each with its
    action_id, its style (Slack's own: none for the default) and its value as JSON text."""
    return [
        {
            "verb": verb,
            "action_id": action_id(verb),
            "style": "" if button.style == "default" else button.style,
            "value": buttons.as_text(value),
        }
        for verb, button, value in buttons.card_values(digest.repo, digest.window, digest.filter)
    ]


# --- answers -------------------------------------------------------------------------------


def _message(answer: Said, tr: Translator) -> SlackMessage:
    """A one-sentence answer (a subscriptions list after it), its usage and notes."""
    s = Speaker(None, tr, SLACK_TARGET)
    sentence = s.answer_sentence(answer)
    if isinstance(answer, SubscriptionsAnswer):
        lines = [f"• {s.subscription_line(v)}" for v in answer.subscriptions]
        sentence = "\n".join([sentence, *lines])
    notes: list[str] = []
    if isinstance(answer, NoDigestAnswer) and answer.weeks:
        notes.append(s.tr.t("cmd.answer.stored_weeks", weeks=", ".join(answer.weeks)))
    if isinstance(answer, ErrorAnswer) and answer.incident:
        incident = escape.slack_text(answer.incident)
        notes.append(s.tr.t("slack.answer.incident", incident=incident))
    usage = answer.usage if isinstance(answer, UsageErrorAnswer) else []
    return _render(
        "slack/message.json.j2",
        tr,
        sentence=sentence,
        notes=notes,
        usage=[escape.slack_text(s.tr.t(key)) for key in usage],
        report_url=escape.safe_url(answer.report_url),
    )


@answers.view(PLATFORM, AnswerKind.RISKS)
def _risks(answer: RisksAnswer, tr: Translator) -> SlackMessage:
    empty = ""
    if not answer.risks:
        severity = tr.t(f"cmd.severity.{answer.severity.value}") if answer.severity else ""
        key = "cmd.answer.no_risks_severity" if severity else "cmd.answer.no_risks"
        empty = tr.t(key, repo=answer.repo, week=label_of(answer.period), severity=severity)
    return _render(
        "slack/risks.json.j2",
        tr,
        filter_text=answer.filter,
        answer=answer,
        risks=answer.risks[:ANSWER_RISKS],
        more=max(len(answer.risks) - ANSWER_RISKS, 0),
        empty=empty,
        keep_risks=KEEP_RISKS,
        evidence_per_risk=EVIDENCE_PER_RISK,
        report_url=escape.safe_url(answer.report_url),
        more_url=escape.safe_url(answer.report_url),
    )


def _factor_lines(answer: PrAnswer, s: Speaker) -> list[str]:
    if answer.pr is None:
        return []
    return [
        s.tr.t("slack.line.factor", points=f"{f.points:+.1f}", reason=s.factor_reason(f))
        for f in ranked_factors(answer.pr)[:FACTORS_SHOWN]
    ]


@answers.view(PLATFORM, AnswerKind.PR)
def _pr(answer: PrAnswer, tr: Translator) -> SlackMessage:
    s = Speaker(None, tr, SLACK_TARGET)
    item = answer.pr or answer.live_pr
    title = item.title if item else ""
    gist = ""
    if answer.pr:
        gist = s.card_point(answer.pr, slack_gist)
    elif answer.live_pr:
        gist = slack_gist(answer.live_pr.body)
    return _render(
        "slack/pr.json.j2",
        tr,
        filter_text=answer.filter,
        answer=answer,
        pr=answer.pr,
        live=answer.live_pr,
        url=slack_url(item.url if item else "", answer.report_url),
        title=slack_title(title),
        gist=gist,
        point=s.point_line(answer.point, answer.point_model, answer.number),
        factors=_factor_lines(answer, s),
        discussion=s.discussion_lines(answer.discussion),
        relations=s.relation_lines(answer.relations),
        risks=answer.risks[:TOP_RISKS],
        report_url=escape.safe_url(answer.report_url),
        more_url=escape.safe_url(answer.report_url),
    )


@answers.view(PLATFORM, AnswerKind.SUMMARY, AnswerKind.TRENDS, AnswerKind.WEEK)
def _digest_view(answer: DigestViewAnswer, tr: Translator) -> SlackMessage:
    digest = answer.digest
    url = escape.safe_url(answer.report_url)
    if answer.kind is AnswerKind.WEEK:
        return render_digest(digest, report_url=url, lang=tr.lang)
    if answer.kind is AnswerKind.SUMMARY:
        return _render(
            "slack/summary.json.j2",
            tr,
            filter_text=digest.filter,
            say=Speaker(digest, tr, SLACK_TARGET).say,
            answer=answer,
            digest=digest,
            report_url=url,
            more_url=url,
        )
    modules = digest.trends.modules[:TOP_MODULES]
    types = digest.trends.types[:TOP_TYPES]
    return _render(
        "slack/trends.json.j2",
        tr,
        filter_text=digest.filter,
        say=Speaker(digest, tr, SLACK_TARGET).say,
        answer=answer,
        digest=digest,
        modules=modules,
        types=types,
        bars={**bars(modules), **bars(types, "type:")},
        report_url=url,
        more_url=url,
    )


@answers.view(PLATFORM, AnswerKind.HELP)
def _help(answer: HelpAnswer, tr: Translator) -> SlackMessage:
    usage = [escape.slack_text(tr.t(k)) for k in answer.usage]
    return _render("slack/help.json.j2", tr, repo=answer.repo, usage=usage)


@answers.view(PLATFORM, AnswerKind.TOP)
def _top(answer: TopAnswer, tr: Translator) -> SlackMessage:
    s = Speaker(None, tr, SLACK_TARGET)
    url = escape.safe_url(answer.report_url)
    return _render(
        "slack/top.json.j2",
        tr,
        filter_text=answer.filter,
        answer=answer,
        prs=answer.prs,
        points={p.number: s.card_point(p, slack_gist) for p in answer.prs},
        report_url=url,
        more_url=url,
    )


def _own_template(template: str, answer: Answer, tr: Translator) -> SlackMessage:
    """An answer of a kind with a template of its own (render/answers.py), given as `answer`."""
    url = escape.safe_url(answer.report_url)
    return _render(
        template, tr, filter_text=answer.filter, answer=answer, report_url=url, more_url=url
    )


def _plain(answer: Answer, tr: Translator) -> SlackMessage:
    """A kind Slack has no view for: the plain-text answer (Markdown, escaped), as mrkdwn."""
    text = answer_markdown(answer, tr.lang).strip()
    return _render(
        "slack/message.json.j2",
        tr,
        filter_text=answer.filter,
        sentence=text,
        notes=[],
        usage=[],
        report_url=escape.safe_url(answer.report_url),
    )


@named_by_family(lambda answer, *_a, **_k: answer.repos)
def render_answer(answer: Answer, lang: str) -> SlackMessage:
    """Any engine Answer as a Slack message (the adapter decides ephemeral or in channel): the
    kind's registered view, else its own template, else its sentence, else the plain text."""
    tr = translator(lang, kind_told(answer.period))
    view = answers.view_for(PLATFORM, answer.kind)
    if view is not None:
        message: SlackMessage = view(answer, tr)
        return message
    template = answers.template_for(PLATFORM, answer.kind)
    if template is not None:
        return _own_template(template, answer, tr)
    if isinstance(answer, Said):
        return _message(answer, tr)
    return _plain(answer, tr)
