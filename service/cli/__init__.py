"""The `verl-week` command line (design.md): one module per verb, each registering its
subcommand and the function that runs it. Every error becomes one line on stderr and an exit
code (0 ok, 2 bad input, 1 failure)."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
import uuid
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from service import __version__, operator_text
from service.cli import (
    analyst_check,
    answer,
    backup,
    digest,
    doctor,
    migrate,
    post,
    scheduler,
    serve,
)
from service.errors import EXIT_BAD_INPUT, EXIT_FAILURE, ServiceError

# `--help` and `--version` import none of the heavy libraries: each verb imports what it needs
# when it runs (benchmarks/startup.py measures the difference)

logger = logging.getLogger(__name__)
# in the order `--help` lists them; `answer` registers `risks` and `pr`, `backup` also `restore`
VERB_MODULES: tuple[ModuleType, ...] = (
    digest,
    post,
    answer,
    serve,
    doctor,
    scheduler,
    migrate,
    backup,
    analyst_check,
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="verl-week", description="Weekly digest of a repository's merged PRs.")
    parser.add_argument("--version", action="version", version=f"verl-week {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for module in VERB_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `verl-week` and `python -m service`."""
    args = build_parser().parse_args(argv)
    try:
        from service.cli.common import configure_logging
        from service.settings import load_settings

        settings = load_settings()
        configure_logging(settings)
        code: int = args.run(args, settings)
        return code
    except ServiceError as exc:
        sys.stderr.write(operator_text.error_line(exc.message) + "\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write(operator_text.INTERRUPTED + "\n")
        return EXIT_FAILURE
    except BrokenPipeError:  # `verl-week digest | head`: the reader left, nothing went wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return EXIT_FAILURE
    except Exception:
        incident = uuid.uuid4().hex[:8]
        logger.exception(operator_text.LOG_INTERNAL_ERROR, extra={"incident": incident})
        sys.stderr.write(operator_text.internal_error_line(incident) + "\n")
        return EXIT_FAILURE


def console() -> int:
    """The `verl-week` process (and `python -m service`): `main`, then its exit without the
    collector's passes over what the command made."""
    try:
        return main()
    finally:
        leave_to_exit()


def leave_to_exit() -> None:
    """The process ends next: at interpreter shutdown Python runs full collections, each
    walking every object still alive (a 2,046-PR build's store, caches and modules: ~0.2 s
    of CPU, benchmarks/README.md "Stop 43"). `gc.freeze()` moves them all into the permanent
    generation, which no collection walks. Shutdown still frees by reference counting what it
    frees now and runs the atexit handlers (logging's flush, the executors' joins, temporary
    directories); only objects in reference cycles are left to the OS, as Python leaves any
    object it does not finalize at exit. Not for `main` itself, which tests call in-process."""
    gc.freeze()
