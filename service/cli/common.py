"""What several verbs of the command line share: their options, the repository and week they
name, the pipeline they build (with a progress display), where their text goes, and the
one-line error a catalog sentence becomes.

Imported by `--help`: only the standard library here at import time, the rest inside functions.
"""

from __future__ import annotations

import argparse
import atexit
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from service import operator_text
from service.cli.periods import add_period_options
from service.errors import InputError

if TYPE_CHECKING:
    from service.core.models import Period
    from service.core.scope import Scope
    from service.pipeline.jobs import Pipeline
    from service.settings import Settings

    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]


class Formats:
    """`--format`'s choices: the report's formats and every registered platform's card, read
    from the registry when a command is parsed (so `--help` loads no renderer)."""

    def _names(self) -> list[str]:
        from service.platforms import registry  # registers the built-in platforms' cards
        from service.render.formats import format_names

        registry.platforms()
        return format_names()

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())


FORMATS = Formats()
LANGS = ("zh", "en")
FILTER_HELP = "e.g. 'module:rollout,npu severity:high' (keys: module label path author severity)"
CLI_LANGUAGE = "en"  # error lines of the command line are English, as every other one


def add_week_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--repo",
        action="append",
        help="owner/name or a family of DIGEST_GROUPS; repeat it for one digest over several "
        "(default: the first of DIGEST_REPOS)",
    )
    parser.add_argument("--repos", default=None, help="owner/a,owner/b: one digest over them")
    parser.add_argument("--week", default=None, help="ISO week like 2026-W18, 'last' or 'this'")
    parser.add_argument("--sample", action="store_true", help="use the bundled verl week")
    add_period_options(parser)


def add_no_llm(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-llm", action="store_true", help="deterministic narrative only (no language model)"
    )


def configure_logging(settings: Settings) -> None:
    from service.observe.logs import setup_logging

    setup_logging(settings.log_format, settings.log_level)


def scope_of(args: argparse.Namespace, settings: Settings) -> Scope:
    """`--repo` (repeatable, a family's name too) and `--repos a,b`, else the sample's with
    `--sample`, else the first of DIGEST_REPOS."""
    from service.pipeline.recorded import SAMPLE_REPO
    from service.settings import REPO_RE

    names = [*(args.repo or []), *(r.strip() for r in (args.repos or "").split(",") if r.strip())]
    if not names:
        names = [SAMPLE_REPO if args.sample else settings.digest_repos[0]]
    for name in names:
        if not REPO_RE.match(name) and name not in settings.digest_groups:
            raise InputError(operator_text.bad_repo(name))
    return settings.scope(names)


def repo_of(args: argparse.Namespace, settings: Settings) -> str:
    """The scope's key: the repository, or the family's name."""
    return scope_of(args, settings).key


def window_of(args: argparse.Namespace, settings: Settings) -> Period:
    """`--week` (default: last week; with `--sample`, the sample's week)."""
    from service import wiring
    from service.cli.periods import chosen_period
    from service.core.weeks import parse_week
    from service.pipeline.recorded import sample_window

    now = wiring.utc_now()
    chosen = chosen_period(args, settings.digest_timezone, now)
    if chosen is None and args.sample:
        return sample_window(now)
    return chosen or parse_week("last", settings.digest_timezone, now)


def progress_display(settings: Settings) -> Callable[[int, int], None]:
    """A bar on a terminal; elsewhere (a container, systemd, CI) a log line every
    PROGRESS_LOG_SECONDS while the collection and the build go on."""
    from service.observe.progress import ProgressLog

    if not sys.stderr.isatty():
        log = ProgressLog(settings.progress_log_seconds)
        atexit.register(log.stop, quiet=True)  # after a build that failed half-way
        return log

    def show(done: int, total: int) -> None:
        sys.stderr.write(operator_text.progress_bar(done, total))
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def week_pipeline(args: argparse.Namespace, settings: Settings, *, senders: bool) -> Pipeline:
    """The pipeline of a verb that builds a week, showing its progress."""
    from service import wiring
    from service.observe.progress import ProgressLog

    progress = progress_display(settings)
    pipeline = wiring.build_pipeline(
        settings,
        sample=args.sample,
        progress=progress,
        with_senders=senders,
        llm=not getattr(args, "no_llm", False),
    )
    if isinstance(progress, ProgressLog):
        pipeline.stage = progress.stage
    return pipeline


def emit(text: str | bytes, output: Path | None) -> None:
    """`text` to stdout (one final newline), or to the file `--output` names; UTF-8 bytes are
    written as they are (a 2,000-PR JSON report is not decoded into a str to be encoded again)."""
    if output is None:
        _to_stdout(text)
        return
    try:
        if isinstance(text, bytes):
            output.write_bytes(text)
        else:
            output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(operator_text.cannot_write(output, exc.strerror)) from None


def _to_stdout(text: str | bytes) -> None:
    """`text` and one final newline to stdout, bytes to its binary buffer when it has one."""
    if isinstance(text, str):
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (a test's StringIO)
        _to_stdout(text.decode())
        return
    sys.stdout.flush()  # what was written as text goes first
    buffer.write(text)
    if not text.endswith(b"\n"):
        buffer.write(b"\n")  # apart: no copy of the whole report with a newline added
    buffer.flush()


def catalog_error(key: str, params: dict[str, str | int]) -> InputError:
    """A catalog sentence (a chat answer's refusal) as the CLI's one-line error (exit 2), in
    English with plain quotes instead of chat markup's backticks."""
    from service.render.environment import translator

    sentence = translator(CLI_LANGUAGE).t(key, **params)
    return InputError(sentence.replace("`", "'"))
