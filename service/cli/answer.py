"""`verl-week risks`, `verl-week pr N` and `verl-week ask <any chat command>`: the same answers
as the chat commands, as plain text. `ask` takes every verb of the chat's table
(service/commands/registry.py; `verl-week ask help` lists them), so a new chat verb is on the
command line without a line here."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from service import operator_text
from service.cli.common import (
    FILTER_HELP,
    LANGS,
    add_week_options,
    catalog_error,
    emit,
    scope_of,
    week_pipeline,
    window_of,
)
from service.errors import EXIT_OK, InputError

if TYPE_CHECKING:
    from service.cli.common import Subparsers
    from service.commands.kinds import Answer
    from service.commands.parse import Command
    from service.core.filters import DigestFilter
    from service.core.models import Digest, Period
    from service.core.scope import Scope
    from service.pipeline.jobs import Pipeline
    from service.settings import Settings


def register(sub: Subparsers) -> None:
    risks = sub.add_parser("risks", help="the week's risks, as the chat command answers")
    add_week_options(risks)
    risks.add_argument("--severity", choices=("high", "medium", "low"), default=None)
    risks.add_argument("--lang", choices=LANGS, default=None)
    risks.add_argument("--filter", default="", help=FILTER_HELP)
    risks.set_defaults(run=run)
    pr = sub.add_parser("pr", help="one PR of the digest, as the chat command answers")
    add_week_options(pr)
    pr.add_argument("number", help="PR number, e.g. 6091; in a family verl-omni#25")
    pr.add_argument("--lang", choices=LANGS, default=None)
    pr.add_argument("--filter", default="", help=FILTER_HELP)
    pr.set_defaults(run=run)
    ask = sub.add_parser(
        "ask", help="any chat command, answered as the chat answers it (`ask help` lists them)"
    )
    ask.add_argument("text", nargs="+", help="the command as typed in chat, e.g. authors 2026-W04")
    add_week_options(ask)
    ask.add_argument("--lang", choices=LANGS, default=None)
    ask.set_defaults(run=run_ask)


def run(args: argparse.Namespace, settings: Settings) -> int:
    pipeline = week_pipeline(args, settings, senders=False)
    lang = args.lang or settings.digest_language
    pipeline.language = lang
    scope, window = scope_of(args, settings), window_of(args, settings)
    emit(answer_text(args, settings, pipeline, scope, window, lang), None)
    return EXIT_OK


def answer_text(
    args: argparse.Namespace,
    settings: Settings,
    pipeline: Pipeline,
    scope: Scope,
    window: Period,
    lang: str,
) -> str:
    """The chat command's answer for the week, built first if not stored."""
    from service import wiring
    from service.commands.answer import AnswerKind, Caller, answer
    from service.commands.kinds import Said
    from service.pipeline.jobs import build_scope
    from service.render.text import render_answer_text

    repo = scope.key
    # `pr N` without --week searches every stored week, as the chat command does
    searching = args.command == "pr" and args.week is None and not args.sample
    stored = pipeline.store.list_periods(repo, lang) if searching else []
    digest = None if args.sample else pipeline.store.get_digest(repo, window, lang)
    if args.sample or (digest is None and not stored):
        digest = build_scope(pipeline, scope, window)
    digest = digest or pipeline.store.latest_digest(repo, lang)  # the newest stored week
    assert digest is not None  # noqa: S101 - built, or a stored week
    command = _command(
        args, repo, None if searching else window.label, typed_filter(args.filter, digest)
    )
    ctx = wiring.engine_context(settings, pipeline)
    ctx.repos = list(dict.fromkeys([*ctx.repos, repo]))
    result = answer(command, Caller(user_id="cli", platform="cli"), ctx)
    if isinstance(result, Said) and result.kind in (AnswerKind.USAGE_ERROR, AnswerKind.NOT_FOUND):
        # an unknown module, a PR in no digest (and not on GitHub, when it was asked): one
        # line, exit 2
        raise catalog_error(result.key, result.params)
    if result.period is not None and result.period.label != digest.period:
        digest = pipeline.store.get_digest(repo, result.period, lang) or digest
    return render_answer_text(result, lang, digest)


def _command(args: argparse.Namespace, repo: str, period: str | None, flt: DigestFilter) -> Command:
    """The chat command the arguments stand for (`week` None: `pr N` in any stored period)."""
    from service.commands.grammar import Command, pr_reference
    from service.core.models import Severity

    if args.command == "pr":
        ref = pr_reference(str(args.number))
        if ref is None:
            raise InputError(operator_text.bad_pr_number(args.number))
        member, number = ref
        return Command(
            verb="pr", number=number, member=member, period=period, repo=repo, filter=flt
        )
    severity = Severity(args.severity) if args.severity else None
    return Command(verb="risks", period=period, severity=severity, repo=repo, filter=flt)


def typed_filter(text: str, digest: Digest) -> DigestFilter:
    """`--filter "module:rollout severity:high"`; a bad one is one line (exit 2) that lists
    the keys and the week's modules."""
    from service.commands.filters import FilterError, parse_typed_filter

    try:
        return parse_typed_filter(text, digest)
    except FilterError as exc:
        raise catalog_error(exc.key, exc.params) from None


def run_ask(args: argparse.Namespace, settings: Settings) -> int:
    """The chat's answer to `args.text`, against the stored digests; with `--sample` or a
    period option, that period's digest is built first when it is not stored (and is the one
    a command that names no period asks about)."""
    from service import wiring
    from service.commands.answer import Caller, answer
    from service.commands.grammar import PeriodRef
    from service.commands.parse import CommandError, parse_command
    from service.render.text import render_answer_text

    pipeline = week_pipeline(args, settings, senders=False)
    lang = args.lang or settings.digest_language
    pipeline.language = lang
    scope = scope_of(args, settings)
    built = _built_period(args, settings, pipeline, scope)
    try:
        command = parse_command(" ".join(args.text))
    except CommandError as exc:
        raise catalog_error(exc.key, exc.params) from None
    if command.period is None and built is not None:
        command = command.model_copy(update={"period": PeriodRef(text=built.period)})
    ctx = wiring.engine_context(settings, pipeline)
    ctx.repos = list(dict.fromkeys([scope.key, *ctx.repos]))
    result = answer(command, Caller(user_id="cli", platform="cli"), ctx)
    _refuse(result)
    emit(render_answer_text(result, lang, built), None)
    return EXIT_OK


def _built_period(
    args: argparse.Namespace, settings: Settings, pipeline: Pipeline, scope: Scope
) -> Digest | None:
    """The digest `--sample` or a period option names, built when not stored; None for none."""
    from service import wiring
    from service.cli.periods import chosen_period
    from service.pipeline.jobs import build_scope

    named = chosen_period(args, settings.digest_timezone, wiring.utc_now())
    if not args.sample and named is None:
        return None
    window = window_of(args, settings)
    language = pipeline.language
    stored = None if args.sample else pipeline.store.get_digest(scope.key, window, language)
    return stored or build_scope(pipeline, scope, window)


def _refuse(result: Answer) -> None:
    """A usage error, a refusal or a PR nobody has: one line, exit 2."""
    from service.commands.answer import AnswerKind
    from service.commands.kinds import Said

    refused = (AnswerKind.USAGE_ERROR, AnswerKind.NOT_FOUND, AnswerKind.DENIED)
    if isinstance(result, Said) and result.kind in refused:
        raise catalog_error(result.key, result.params)
