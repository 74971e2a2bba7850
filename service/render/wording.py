"""Catalog sentences with untrusted parameters escaped for one target (Slack, Feishu, …),
and the one rule for which catalog key words a risk."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.commands.answer import SubscriptionView
from service.core.models import Risk, ScoredPR
from service.core.risks import message_keys, message_params
from service.render.strings import Translator

Escape = Callable[[str], str]


def safe_param(value: Any, escape: Escape) -> Any:
    """Strings escaped; lists joined (PR numbers as `#N`); numbers as they are."""
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, list):
        return ", ".join(
            f"#{item}" if isinstance(item, int) else escape(str(item)) for item in value
        )
    return value


# A parameter holding a change type (`feat`): shown by its name in the language (report.type).
TYPE_PARAM = "type"


def say(tr: Translator, key: str, params: dict[str, Any], escape: Escape) -> str:
    """The catalog sentence for `key` with every parameter made safe by `escape`."""
    safe = {name: safe_param(value, escape) for name, value in params.items()}
    kind = params.get(TYPE_PARAM)
    if isinstance(kind, str) and tr.has(f"report.type.{kind}"):
        safe[TYPE_PARAM] = tr.t(f"report.type.{kind}")
    return tr.t(key, **safe)


def risk_key(tr: Translator, risk: Risk, field: str) -> str | None:
    """The rule-specific key when the catalog has it, else the kind's key, else None."""
    return next((key for key in message_keys(risk, field) if tr.has(key)), None)


def risk_say(
    tr: Translator, risk: Risk, field: str, escape: Escape, *, fallback: str | None = None
) -> str:
    """A risk's `field` sentence (title, summary, recommendation) for one target."""
    key = risk_key(tr, risk, field)
    if key is None:
        if fallback is None:
            raise KeyError(f"no catalog wording for risk {risk.kind}.{risk.rule}.{field}")
        return say(tr, fallback, {"kind": risk.kind.value}, escape)
    return say(tr, key, dict(message_params(risk)), escape)


def subscription_line(tr: Translator, view: SubscriptionView, escape: Escape) -> str:
    """`repo · filter · language` of one subscription (the filter is the channel's own text)."""
    filter_text = escape(view.filter) if view.filter else tr.t("cmd.answer.subscription_all")
    return tr.t(
        "cmd.answer.subscription_line",
        repo=escape(view.repo),
        filter=filter_text,
        language=view.language or "-",
    )


def point(tr: Translator, pr: ScoredPR, escape: Escape) -> str:
    """What the PR does: its gist, else what its files show (never its title); '' for neither."""
    if pr.gist:
        return escape(pr.gist)
    if pr.files_gist is not None:
        return say(tr, pr.files_gist.key, pr.files_gist.params, escape)
    return ""
