"""`verl-week doctor`: one line per check (ok / problem and what to do); exit 1 when any fails."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING

from service.errors import EXIT_FAILURE, EXIT_OK

if TYPE_CHECKING:
    from service.cli.common import Subparsers
    from service.settings import Settings


def register(sub: Subparsers) -> None:
    parser = sub.add_parser("doctor", help="check every configured piece; exit 1 on a problem")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from service import wiring

    logging.disable(logging.CRITICAL)  # the findings say it all: no log line amid them
    try:
        findings = wiring.run_doctor(settings)
    finally:
        logging.disable(logging.NOTSET)
    for finding in findings:
        sys.stdout.write(finding.line() + "\n")
    return EXIT_OK if all(f.ok for f in findings) else EXIT_FAILURE
