"""Trend buckets a sentence counts: "megatron 有 4 个", "ci、fsdp、rollout、veomni 各有 3 个",
"fsdp followed with 11". A concept spelled as a bucket's key and counted there names the
bucket, a word of the digest's trends, not a thing the PRs the sentence cites work on (the
count itself is checked against the bucket's, counts.py)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# after a bucket's key: more keys of the list, its kind, a verb, then its count
_COUNTED_AFTER = re.compile(
    r"(?:\s*(?:[、,，/]|\band\b|\bor\b|和|与|及)\s*[\w-]+)*"
    r"\s*(?:模块|类别|类型|类|modules?\b|categor(?:y|ies)\b|types?\b)?"
    r"\s*(?:各|each\s+)?(?:有|占|计|为|以|达|:|：|\(|（|\bwith\b|\bhad\b|\bhas\b|\bat\b"
    r"|\bfollowed\s+with\b)?\s*\d+",
    re.IGNORECASE,
)


def counted_keys(text: str, trends: Mapping[str, Sequence[Any]]) -> set[str]:
    """The keys (lower case) of the week's trend buckets `text` names right before a count."""
    out: set[str] = set()
    for buckets in trends.values():
        for b in buckets:
            key = re.escape(b.key)
            for found in re.finditer(rf"(?<![\w-]){key}(?![\w-])", text, re.IGNORECASE):
                if _COUNTED_AFTER.match(text, found.end()):
                    out.add(b.key.lower())
    return out
