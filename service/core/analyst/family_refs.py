"""A family digest's PRs as the model names them (core/scope.py): the facts show each PR of a
family's other repository by its key and its reference (`verl-omni#25`); the model may write
either, and the checker knows the keys only. `keyed_drafts` rewrites every `verl-omni#25` of
the model's text to `#<key>` before the checker reads it, so that `verl-omni#25` and `#25` are
different PRs (the renderers write a key back as `verl-omni#25`)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from service.core.analyst.schema import Draft
from service.core.scope import pr_key, short_name

_REF = re.compile(r"(?<![\w/#-])(?:[\w.-]+/)?([\w.-]+)#(\d{1,7})\b")


def keyed_text(text: str, repos: Sequence[str]) -> str:
    """`verl-omni#25` → `#<key>`, `verl#6200` → `#6200`; other text as it is."""
    index = {short_name(r).lower(): i for i, r in enumerate(repos)}

    def key(match: re.Match[str]) -> str:
        found = index.get(match.group(1).lower())
        if found is None:
            return match.group(0)
        return f"#{pr_key(found, int(match.group(2)))}"

    return _REF.sub(key, text)


def keyed_drafts(drafts: Sequence[Draft], repos: Sequence[str]) -> list[Draft]:
    """The drafts with their references keyed (a single repository's: unchanged)."""
    if not repos:  # Digest.repo_names is empty for one repository
        return list(drafts)
    return [
        dataclasses.replace(d, text=keyed_text(d.text, repos), theme=keyed_text(d.theme, repos))
        for d in drafts
    ]
