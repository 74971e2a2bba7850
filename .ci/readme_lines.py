"""Print the shell lines of the README block marked `<!-- ci: NAME -->` (the fenced block right
after the marker), so that CI runs the README's install steps exactly as written."""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def block(name: str, text: str) -> str:
    found = re.search(rf"<!-- ci: {re.escape(name)} -->\n```sh\n(.*?)\n```", text, re.S)
    if found is None:
        raise SystemExit(f"README.md has no block marked <!-- ci: {name} -->")
    return found.group(1) + "\n"


if __name__ == "__main__":
    sys.stdout.write(block(sys.argv[1], README.read_text(encoding="utf-8")))
