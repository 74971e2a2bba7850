"""`verl-week analyst-check FILE`: each sentence of a model's answer file, kept or dropped with
the checker's reasons, against the week's facts."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from service.cli.common import LANGS, add_week_options, emit, repo_of, window_of
from service.errors import EXIT_OK, InputError

if TYPE_CHECKING:
    from service.cli.common import Subparsers
    from service.settings import Settings


def register(sub: Subparsers) -> None:
    parser = sub.add_parser("analyst-check", help="check a model's answer file against a week")
    add_week_options(parser)
    parser.add_argument("file", type=Path, help="a JSON answer in the model's schema")
    parser.add_argument("--lang", choices=LANGS, default=None)
    parser.add_argument(
        "--verify",
        action="store_true",
        help="run the verification pass by a model too (LLM_VERIFY_*, else LLM_*)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from service import wiring
    from service.ops.analyst_check import check_file

    pipeline = wiring.build_pipeline(settings, sample=args.sample, with_senders=False, llm=False)
    lang = args.lang or settings.digest_language
    repo, window = repo_of(args, settings), window_of(args, settings)
    verifier = None
    if args.verify:
        if not (settings.llm_verify_base_url or settings.llm_base_url):
            raise InputError("--verify needs a model: set LLM_BASE_URL and LLM_MODEL")
        verifier = wiring.build_verifier(settings, pipeline.store)
    lines = check_file(
        args.file, pipeline, repo, window, lang=lang, sample=args.sample, verifier=verifier
    )
    emit("\n".join(lines), None)
    return EXIT_OK
