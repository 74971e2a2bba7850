"""`verl-week serve`: the web app (reports, chat endpoints, /healthz, /metrics), with the weekly
scheduler in the same process unless `--no-scheduler`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from service.errors import EXIT_OK

if TYPE_CHECKING:
    from service.cli.common import Subparsers
    from service.settings import Settings


SERVE_HELP = """\
Run the web app (Slack and Feishu endpoints, the report pages, /healthz, /livez,
/metrics) and the weekly scheduler in one process, until SIGTERM or Ctrl-C. Settings come
from the environment or ./.env (names as in .env.example); a bad setting stops it with one
line naming it (exit 2). With SLACK_APP_TOKEN it also opens Slack's Socket Mode, with
FEISHU_EVENT_MODE=websocket Feishu's long connection: no public URL needed for those."""
SERVE_EXAMPLE = """\
examples:
  verl-week serve                                # everything on 0.0.0.0:8080
  verl-week serve --host 127.0.0.1 --port 8080   # behind a reverse proxy (the systemd unit)
  verl-week serve --no-scheduler                 # a web replica; run `verl-week scheduler` once"""


def register(sub: Subparsers) -> None:
    parser = sub.add_parser(
        "serve",
        help="web app + scheduler in one process",
        description=SERVE_HELP,
        epilog=SERVE_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--port", type=int, default=8080, help="default 8080")
    parser.add_argument(  # a server listens on all interfaces unless told otherwise
        "--host",
        default="0.0.0.0",  # noqa: S104
        help="default 0.0.0.0 (all interfaces)",
    )
    parser.add_argument("--no-scheduler", action="store_true", help="web app only")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from service import wiring
    from service.observe.optional_helpers import log_fallbacks

    log_fallbacks()
    pipeline = wiring.progress_logged(settings)
    weekly = None if args.no_scheduler else wiring.build_weekly_scheduler(settings, pipeline)
    app = wiring.build_app(settings, pipeline, scheduler=weekly)
    if weekly:
        weekly.start()
    uvicorn.run(app, host=args.host, port=args.port, access_log=False, log_config=None)
    return EXIT_OK
