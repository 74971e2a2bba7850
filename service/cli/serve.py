"""`verl-week serve`: the web app (reports, chat endpoints, /healthz, /metrics), with the weekly
scheduler in the same process unless `--no-scheduler`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from service.errors import EXIT_OK

if TYPE_CHECKING:
    from service.cli.common import Subparsers
    from service.settings import Settings


def register(sub: Subparsers) -> None:
    parser = sub.add_parser("serve", help="web app + scheduler in one process")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--host", default="0.0.0.0")  # noqa: S104 - a server listens on all interfaces
    parser.add_argument("--no-scheduler", action="store_true", help="web app only")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from service import wiring
    from service.optional_helpers import log_fallbacks

    log_fallbacks()
    pipeline = wiring.progress_logged(settings)
    weekly = None if args.no_scheduler else wiring.build_weekly_scheduler(settings, pipeline)
    app = wiring.build_app(settings, pipeline, scheduler=weekly)
    if weekly:
        weekly.start()
    uvicorn.run(app, host=args.host, port=args.port, access_log=False, log_config=None)
    return EXIT_OK
