"""The token readers verbs are made of: each takes one argument token into a Command's fields
when it means something to it (and that field is not taken yet), and says whether it did.

A verb lists the readers it takes, in the order they are tried (commands/verbs/*.py); a token no
reader takes is a usage error of that verb.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from service.commands.grammar import normalize_week, pr_reference
from service.commands.periods import normalize_period
from service.core.cadences import CADENCES
from service.core.models import Severity

PUBLIC_WORD = "public"
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
# a family of DIGEST_GROUPS (`subscribe verl-project`): a name without `/`, with a `-`, `_` or
# `.` in it (so that no word of the grammar is taken for one)
_FAMILY = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)+$")

Fields = dict[str, object]
# (verb, token, fields) → whether the token was taken into `fields`
TokenReader = Callable[[str, str, Fields], bool]


def public(verb: str, token: str, fields: Fields) -> bool:
    """`public`: answer in the channel, not to the asker alone."""
    if token.lower() != PUBLIC_WORD or "public" in fields:
        return False
    fields["public"] = True
    return True


def period(verb: str, token: str, fields: Fields) -> bool:
    """A week (`2026-W18`, `last`), a month (`2026-01`, `month`) or a range."""
    if "period" in fields:
        return False
    found = normalize_week(token) or normalize_period(token, verb)
    if found is None:
        return False
    fields["period"] = found
    return True


def severity(verb: str, token: str, fields: Fields) -> bool:
    """`high`, `medium`, `low`."""
    lowered = token.lower()
    if lowered not in Severity.__members__.values() or "severity" in fields:
        return False
    fields["severity"] = Severity(lowered)
    return True


def pr(verb: str, token: str, fields: Fields) -> bool:
    """`6091`, `#6091`, `verl-omni#25` or a pull request's URL."""
    ref = pr_reference(token) if "number" not in fields else None
    if ref is None:
        return False
    fields["member"], fields["number"] = ref
    return True


def repository(verb: str, token: str, fields: Fields) -> bool:
    """`owner/name`: a repository of DIGEST_REPOS (an old name of one too)."""
    if not _REPO.match(token) or "repo" in fields:
        return False
    fields["repo"] = token
    return True


def cadence(verb: str, token: str, fields: Fields) -> bool:
    """`weekly`, `monthly`: the cadence of a subscription."""
    if token.lower() not in CADENCES or "cadence" in fields:
        return False
    fields["cadence"] = token.lower()
    return True


def family(verb: str, token: str, fields: Fields) -> bool:
    """A family's name (`verl-project`), where a verb takes a family for its repository."""
    if not _FAMILY.match(token) or "repo" in fields:
        return False
    fields["repo"] = token
    return True
