"""The `verl-week` command line (design.md): digest, post, risks, pr, serve, scheduler, migrate.
Every error becomes one line on stderr and an exit code (0 ok, 2 bad input, 1 failure)."""

from __future__ import annotations

import argparse
import atexit
import logging
import os
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from service import __version__
from service.errors import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_OK, InputError, ServiceError
from service.progress import ProgressLog

# `--help` and `--version` import none of these: each command imports what it needs when it runs
# (benchmarks/startup.py measures the difference)
if TYPE_CHECKING:
    from service.core.models import WeekWindow
    from service.jobs import Pipeline
    from service.settings import Settings

logger = logging.getLogger(__name__)
FORMATS = ("markdown", "html", "json", "slack", "feishu")
FILTER_HELP = "e.g. 'module:rollout,npu severity:high' (keys: module label path author severity)"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", help="owner/name (default: the first of DIGEST_REPOS)")
    parser.add_argument("--week", default=None, help="ISO week like 2026-W18, 'last' or 'this'")
    parser.add_argument("--sample", action="store_true", help="use the bundled verl week")


def _no_llm(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-llm", action="store_true", help="deterministic narrative only (no language model)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="verl-week", description="Weekly digest of a repository's merged PRs.")
    parser.add_argument("--version", action="version", version=f"verl-week {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    digest = sub.add_parser("digest", help="build the week's digest and print it")
    _common(digest)
    digest.add_argument("--format", choices=FORMATS, default="markdown")
    digest.add_argument("--lang", choices=("zh", "en"), default=None)
    digest.add_argument("--output", type=Path, default=None, help="write to FILE instead")
    _no_llm(digest)
    post = sub.add_parser("post", help="build the week and post it to chat, once")
    _common(post)
    post.add_argument("--to", default=None, help="slack:CHANNEL,feishu:oc_xxx,webhook:feishu")
    post.add_argument("--dry-run", action="store_true", help="show what would be posted")
    post.add_argument("--force", action="store_true", help="edit cards already posted")
    _no_llm(post)
    risks = sub.add_parser("risks", help="the week's risks, as the chat command answers")
    _common(risks)
    risks.add_argument("--severity", choices=("high", "medium", "low"), default=None)
    risks.add_argument("--lang", choices=("zh", "en"), default=None)
    risks.add_argument("--filter", default="", help=FILTER_HELP)
    pr = sub.add_parser("pr", help="one PR of the digest, as the chat command answers")
    _common(pr)
    pr.add_argument("number", help="PR number, e.g. 6091")
    pr.add_argument("--lang", choices=("zh", "en"), default=None)
    pr.add_argument("--filter", default="", help=FILTER_HELP)
    serve = sub.add_parser("serve", help="web app + scheduler in one process")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument("--host", default="0.0.0.0")  # noqa: S104 - a server listens on all interfaces
    serve.add_argument("--no-scheduler", action="store_true", help="web app only")
    sub.add_parser("doctor", help="check every configured piece; exit 1 on a problem")
    scheduler = sub.add_parser("scheduler", help="the weekly scheduler alone (+ /healthz)")
    scheduler.add_argument("--port", type=int, default=8080, help="for /healthz, /livez, /metrics")
    scheduler.add_argument("--host", default="0.0.0.0")  # noqa: S104 - probes come from outside
    migrate = sub.add_parser("migrate", help="bring the database schema up to date, then exit")
    migrate.add_argument(
        "--to", metavar="REVISION", help="instead, take the schema back to an older revision"
    )
    save = sub.add_parser("backup", help="copy the SQLite database, online, to a new FILE")
    save.add_argument("file", type=Path)
    load = sub.add_parser("restore", help="replace the SQLite database by a backup FILE")
    load.add_argument("file", type=Path)
    check = sub.add_parser("analyst-check", help="check a model's answer file against a week")
    _common(check)
    check.add_argument("file", type=Path, help="a JSON answer in the model's schema")
    check.add_argument("--lang", choices=("zh", "en"), default=None)
    return parser


def _repo(args: argparse.Namespace, settings: Settings) -> str:
    from service.recorded import SAMPLE_REPO
    from service.settings import REPO_RE

    repo = args.repo or (SAMPLE_REPO if args.sample else settings.digest_repos[0])
    if not REPO_RE.match(repo):
        raise InputError(f"bad --repo {repo!r}: expected owner/name such as volcengine/verl")
    return str(repo)


def _window(args: argparse.Namespace, settings: Settings) -> WeekWindow:
    from service import wiring
    from service.core.weeks import parse_week
    from service.recorded import sample_window

    now = wiring.utc_now()
    if args.week is None and args.sample:
        return sample_window(now)
    return parse_week(args.week or "last", settings.digest_timezone, now)


def _progress(settings: Settings) -> Callable[[int, int], None]:
    """A bar on a terminal; elsewhere (a container, systemd, CI) a log line every
    PROGRESS_LOG_SECONDS while the collection and the build go on."""
    if not sys.stderr.isatty():
        log = ProgressLog(settings.progress_log_seconds)
        atexit.register(log.stop, quiet=True)  # after a build that failed half-way
        return log

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\rcollecting [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def _pipeline(args: argparse.Namespace, settings: Settings, *, senders: bool) -> Pipeline:
    from service import wiring

    progress = _progress(settings)
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


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {output}: {exc.strerror}") from None


def cmd_digest(args: argparse.Namespace, settings: Settings) -> int:
    from service import wiring
    from service.jobs import build_week

    pipeline = _pipeline(args, settings, senders=False)
    lang = args.lang or settings.digest_language
    pipeline.language = lang
    digest = build_week(pipeline, _repo(args, settings), _window(args, settings))
    from service.render.formats import render_format

    url = wiring.report_link(settings, pipeline.store, digest.repo, digest.week)
    _emit(render_format(digest, args.format, lang, report_url=url), args.output)
    return EXIT_OK


def cmd_post(args: argparse.Namespace, settings: Settings) -> int:
    from service import wiring
    from service.delivery import Target
    from service.jobs import build_week, card_languages, run_week

    pipeline = _pipeline(args, settings, senders=not args.dry_run)
    repo, window = _repo(args, settings), _window(args, settings)
    named = wiring.parse_destinations(args.to) if args.to else None
    targets = wiring.named_targets(settings, pipeline.store, named) if named else None
    if args.dry_run:
        shown = targets if targets is not None else pipeline.destinations_for(repo)
        digest = build_week(pipeline, repo, window, card_languages(pipeline, shown))
        for line in wiring.dry_run_lines(settings, pipeline, digest, targets):
            sys.stdout.write(line + "\n")
        return EXIT_OK
    result = run_week(pipeline, repo, window, trigger="cli", force=args.force, destinations=targets)
    for outcome in result.outcomes:
        detail = outcome.error or outcome.message_id or ""
        where = Target(outcome.destination, outcome.filter).label()
        sys.stdout.write(f"{where}\t{outcome.action}\t{detail}\n")
    if result.error:
        raise ServiceError(result.error)
    failed = any(o.action in ("failed", "unknown") for o in result.outcomes)
    return EXIT_FAILURE if failed else EXIT_OK


def cmd_answer(args: argparse.Namespace, settings: Settings) -> int:
    """`risks` and `pr`: the same answers as the chat commands, as plain text."""
    from service import wiring

    pipeline = _pipeline(args, settings, senders=False)
    lang = args.lang or settings.digest_language
    pipeline.language = lang
    text = wiring.answer_text(
        args, settings, pipeline, _repo(args, settings), _window(args, settings), lang
    )
    _emit(text, None)
    return EXIT_OK


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from service import wiring

    wiring.serve(settings, host=args.host, port=args.port, scheduler=not args.no_scheduler)
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    """One line per check (ok / problem and what to do); exit 1 when any check fails."""
    from service import wiring

    findings = wiring.run_doctor(settings)
    for finding in findings:
        sys.stdout.write(finding.line() + "\n")
    return EXIT_OK if all(f.ok for f in findings) else EXIT_FAILURE


def cmd_scheduler(args: argparse.Namespace, settings: Settings) -> int:
    from service import wiring

    wiring.run_scheduler(settings, host=args.host, port=args.port)
    return EXIT_OK


def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:
    from service import wiring

    if args.to is not None:
        went = wiring.downgrade_database(settings, args.to)
        back = ", ".join(sorted(went.after)) or "empty"
        sys.stdout.write(
            f"database schema taken back from {', '.join(sorted(went.before))} to {back}\n"
        )
        return EXIT_OK
    before, after = wiring.migrate_database(settings)
    now = ", ".join(sorted(after))
    if before == after:
        sys.stdout.write(f"database schema at revision {now}: up to date\n")
    else:
        was = ", ".join(sorted(before)) or "empty"
        sys.stdout.write(f"database schema upgraded from {was} to revision {now}\n")
    return EXIT_OK


def cmd_backup(args: argparse.Namespace, settings: Settings) -> int:
    from service.backup import backup

    size = backup(settings.database_url, args.file)
    sys.stdout.write(f"database backed up to {args.file} ({size} bytes)\n")
    return EXIT_OK


def cmd_restore(args: argparse.Namespace, settings: Settings) -> int:
    from service.backup import restore

    tables = restore(settings.database_url, args.file)
    sys.stdout.write(f"database restored from {args.file} ({tables} tables)\n")
    return EXIT_OK


def cmd_analyst_check(args: argparse.Namespace, settings: Settings) -> int:
    """Each sentence of an answer file, kept or dropped with the checker's reasons."""
    from service import wiring
    from service.analyst_check import check_file

    pipeline = wiring.build_pipeline(settings, sample=args.sample, with_senders=False, llm=False)
    lang = args.lang or settings.digest_language
    repo, window = _repo(args, settings), _window(args, settings)
    lines = check_file(args.file, pipeline, repo, window, lang=lang, sample=args.sample)
    _emit("\n".join(lines), None)
    return EXIT_OK


COMMANDS: dict[str, Callable[[argparse.Namespace, Settings], int]] = {
    "digest": cmd_digest,
    "post": cmd_post,
    "risks": cmd_answer,
    "pr": cmd_answer,
    "doctor": cmd_doctor,
    "serve": cmd_serve,
    "scheduler": cmd_scheduler,
    "migrate": cmd_migrate,
    "backup": cmd_backup,
    "restore": cmd_restore,
    "analyst-check": cmd_analyst_check,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `verl-week` and `python -m service`."""
    args = build_parser().parse_args(argv)
    try:
        from service import wiring
        from service.settings import load_settings

        settings = load_settings()
        wiring.configure_logging(settings)
        return COMMANDS[args.command](args, settings)
    except ServiceError as exc:
        sys.stderr.write(f"verl-week: error: {exc.message}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("verl-week: interrupted\n")
        return EXIT_FAILURE
    except BrokenPipeError:  # `verl-week digest | head`: the reader left, nothing went wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return EXIT_FAILURE
    except Exception:
        incident = uuid.uuid4().hex[:8]
        logger.exception("internal error", extra={"incident": incident})
        sys.stderr.write(f"verl-week: internal error (id {incident}); see the log\n")
        return EXIT_FAILURE
