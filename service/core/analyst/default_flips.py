"""A default told as on, off or none ("默认即启用", "默认不启用", "off by default", "默认为 False",
"a default of None"), read against the default the cited PRs' code gives the setting the
clause names (`use_megatron_fsdp: bool = False`, `merge: false` in a yaml): the PR's words may
speak of enabling things and defaults elsewhere, the code says which way the new setting starts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.core.analyst import code_defaults
from service.core.analyst.evidence import PREvidence

_ON = frozenset({"true", "on", "开启", "启用"})
_OFF = frozenset({"false", "off", "关闭", "禁用"})
# "默认不启用", "默认未开启": the switch word negated
_NEGATED = re.compile(r"(?:不|未|无需|并不|并未|not)\s*$", re.IGNORECASE)
_NONE = re.compile(r"\b(?:none|null)\b", re.IGNORECASE)
_STATES = frozenset({"true", "false", "null"})
# a name, dotted or not: `RolloutConfig.quantization` names quantization
_NAME = re.compile(r"(?<![\w.])[A-Za-z_][\w.]*[A-Za-z0-9_]")


def folded(word: str, before: str) -> str:
    """The switch word as it reads after the words `before` it: a negated on is off."""
    if not _NEGATED.search(before):
        return word
    return "关闭" if word.lower() in _ON else "启用" if word.lower() in _OFF else word


def _state(word: str) -> str:
    return "true" if word.lower() in _ON else "false" if word.lower() in _OFF else word


def code_verdict(
    reach: str, window: str, flips: Sequence[str], prs: Sequence[PREvidence]
) -> bool | None:
    """Whether the one state the clause gives (a switch word, or None) is the default a cited
    PR's added code gives a name said near the default word (`reach`); None when it names
    none the code gives an on/off or none default, or the clause gives several states."""
    said = {_state(f) for f in flips} | ({"null"} if _NONE.search(window) else set())
    if len(said) != 1 or not said <= _STATES:
        return None
    given: set[str] = set()
    for e in prs:
        new = code_defaults.defaults(e.files, "+")
        for name in _NAME.findall(reach):
            values = new.get(name.lower().rsplit(".", 1)[-1], set())
            if values and values <= _STATES:
                given |= values
    if not given:
        return None
    return said <= given
