"""`verl-week digest`: build the week's digest and print it (or write it to a file)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from service.cli.common import (
    FORMATS,
    LANGS,
    add_no_llm,
    add_week_options,
    emit,
    scope_of,
    week_pipeline,
    window_of,
)
from service.errors import EXIT_OK

if TYPE_CHECKING:
    from service.cli.common import Subparsers
    from service.settings import Settings


def register(sub: Subparsers) -> None:
    parser = sub.add_parser("digest", help="build the week's digest and print it")
    add_week_options(parser)
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="markdown",
        metavar="FORMAT",  # named, so that the choices are read only when a command is parsed
        help="markdown (default), html, json, or a platform's card: slack, feishu",
    )
    parser.add_argument("--lang", choices=LANGS, default=None)
    parser.add_argument("--output", type=Path, default=None, help="write to FILE instead")
    add_no_llm(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from service import wiring
    from service.pipeline.jobs import build_scope
    from service.render.formats import render_format, render_format_bytes

    pipeline = week_pipeline(args, settings, senders=False)
    lang = args.lang or settings.digest_language
    pipeline.language = lang
    digest = build_scope(pipeline, scope_of(args, settings), window_of(args, settings))
    url = wiring.pipeline_links(settings, pipeline).url(digest.repo, digest.period)
    if args.format == "json":  # tens of MB for a large week: kept as bytes
        emit(render_format_bytes(digest, "json", lang, report_url=url), args.output)
    else:
        emit(render_format(digest, args.format, lang, report_url=url), args.output)
    return EXIT_OK
