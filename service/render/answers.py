"""Which view shows an answer of which kind, on which platform.

A platform's renderer (render/slack.py, feishu.py, text.py) registers the views that need more
than the answer itself (a digest's card, a PR's lines); any other kind is shown by its own
template where the platform has one — `<platform>/<kind>.<ext>` under templates/, given the
answer as `answer` — else as a one-sentence answer (a `Said` kind), else through the plain-text
renderer, whose Markdown every platform can show. So a new verb's answer needs no code here:
its templates, or none at all.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from service.render.environment import templates_dir

View = TypeVar("View", bound=Callable[..., Any])
# the file ending of a platform's templates
EXTENSIONS = {"slack": "json.j2", "feishu": "json.j2", "text": "md.j2"}

_VIEWS: dict[tuple[str, str], Callable[..., Any]] = {}


def view(platform: str, *kinds: str) -> Callable[[View], View]:
    """Register the decorated function as `platform`'s view of answers of `kinds`."""

    def register(function: View) -> View:
        for kind in kinds:
            _VIEWS[(platform, str(kind))] = function
        return function

    return register


def view_for(platform: str, kind: str) -> Callable[..., Any] | None:
    """The view `platform` registered for `kind`, or None."""
    return _VIEWS.get((platform, str(kind)))


@functools.cache
def template_for(platform: str, kind: str) -> str | None:
    """`<platform>/<kind>.<ext>` when the platform has a template of the kind's own, or None."""
    name = f"{platform}/{kind}.{EXTENSIONS[platform]}"
    return name if (templates_dir() / name).is_file() else None
