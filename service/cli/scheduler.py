"""`verl-week scheduler`: the weekly job alone, with /healthz, /livez and /metrics on `--port`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from service.errors import EXIT_OK

if TYPE_CHECKING:
    from service.cli.common import Subparsers
    from service.settings import Settings


def register(sub: Subparsers) -> None:
    parser = sub.add_parser("scheduler", help="the weekly scheduler alone (+ /healthz)")
    parser.add_argument("--port", type=int, default=8080, help="for /healthz, /livez, /metrics")
    parser.add_argument("--host", default="0.0.0.0")  # noqa: S104 - probes come from outside
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from service import wiring
    from service.observe.optional_helpers import log_fallbacks

    log_fallbacks()
    pipeline = wiring.progress_logged(settings)
    weekly = wiring.build_weekly_scheduler(settings, pipeline)
    app = wiring.build_ops_app(settings, pipeline, weekly)
    weekly.start()
    uvicorn.run(app, host=args.host, port=args.port, access_log=False, log_config=None)
    return EXIT_OK
