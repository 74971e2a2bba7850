"""`verl-week post`: build the week and post it to chat, once per destination; `--dry-run`
shows what each destination would get instead."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from service import operator_text
from service.cli.common import add_no_llm, add_week_options, scope_of, week_pipeline, window_of
from service.core.cadences import WEEKLY
from service.errors import EXIT_FAILURE, EXIT_OK, ServiceError

if TYPE_CHECKING:
    from service.cli.common import Subparsers
    from service.core.models import Digest
    from service.delivery.outbox import Target
    from service.pipeline.jobs import Pipeline
    from service.settings import Settings


def register(sub: Subparsers) -> None:
    parser = sub.add_parser("post", help="build the week and post it to chat, once")
    add_week_options(parser)
    parser.add_argument(
        "--to", default=None, help="slack:CHANNEL,feishu:oc_xxx,feishu-webhook:default"
    )
    parser.add_argument("--dry-run", action="store_true", help="show what would be posted")
    parser.add_argument("--force", action="store_true", help="edit cards already posted")
    add_no_llm(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from service import wiring
    from service.delivery.outbox import Target
    from service.pipeline.jobs import build_scope, card_languages, run_week

    pipeline = week_pipeline(args, settings, senders=not args.dry_run)
    scope, window = scope_of(args, settings), window_of(args, settings)
    repo = scope.key
    named = wiring.parse_destinations(args.to) if args.to else None
    routes = wiring.chat_routes(settings, pipeline.store)
    targets = routes.named_targets(named) if named is not None else None
    if args.dry_run:
        shown = targets if targets is not None else pipeline.destinations_for(repo, WEEKLY)
        digest = build_scope(pipeline, scope, window, card_languages(pipeline, shown))
        for line in dry_run_lines(settings, pipeline, digest, targets):
            sys.stdout.write(line + "\n")
        return EXIT_OK
    result = run_week(pipeline, repo, window, trigger="cli", force=args.force, destinations=targets)
    for outcome in result.outcomes:
        detail = outcome.error or outcome.message_id or ""
        where = Target(outcome.destination, outcome.filter).label()
        sys.stdout.write(operator_text.post_outcome(where, outcome.action, detail) + "\n")
    if result.error:
        raise ServiceError(result.error)
    failed = any(o.action in ("failed", "unknown") for o in result.outcomes)
    return EXIT_FAILURE if failed else EXIT_OK


def dry_run_lines(
    settings: Settings, pipeline: Pipeline, digest: Digest, targets: list[Target] | None
) -> list[str]:
    """What `post --dry-run` shows: each target, what it already has, its card and size."""
    from service import wiring
    from service.commands.filters import parse_filter
    from service.core.filters import narrow_digest
    from service.delivery.outbox import as_targets, recorded_name
    from service.platforms import registry
    from service.render.formats import render_format

    routes = pipeline.destinations_for(digest.repo, WEEKLY)
    chosen = as_targets(targets if targets is not None else routes)
    if not chosen:
        return [operator_text.NO_DESTINATION_CONFIGURED]
    url = wiring.pipeline_links(settings, pipeline).url(digest.repo, digest.period)
    lines = []
    for target in chosen:
        fmt = registry.card_of(target.destination).name
        lang = target.language or digest.language
        shown = narrow_digest(digest, parse_filter(target.filter))
        size = len(render_format(shown, fmt, lang, report_url=url).encode())
        record = pipeline.store.get_delivery(
            digest.repo, digest.window, recorded_name(target.destination), target.filter
        )
        state = operator_text.dry_run_state(record.status if record else None)
        card = operator_text.dry_run_card(fmt, lang, shown.stats.prs, size)
        lines.append(operator_text.dry_run_line(target.label(), state, card))
    return lines
