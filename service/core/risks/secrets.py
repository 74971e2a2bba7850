"""Secret-looking strings in added lines, masked in the evidence (first 4 characters + ****).

Rules (all high: a pushed secret must be revoked, deleting it from the branch is not enough):
- ``github_token``: ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` + 36 characters, or
  ``github_pat_`` + 82;
- ``slack_token``: ``xoxb-``/``xoxp-``/``xoxa-``/``xoxs-``/``xapp-`` tokens, and Slack incoming
  webhook URLs ``hooks.slack.com/services/T…/B…/…``;
- ``aws_key``: access key ids ``AKIA``/``ASIA`` + 16, and ``aws_secret_access_key = <40 chars>``;
- ``private_key``: a ``-----BEGIN … PRIVATE KEY-----`` header.
Placeholders are not secrets: values with ``x``/``*``/``.`` runs, ``your``, ``example``,
``dummy``, ``placeholder``, ``<…>``, or AWS's documented ``…EXAMPLE`` keys.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from service.core.models import PullRequest, Risk, RiskKind, Severity
from service.core.risks.base import Context, Line, RuleSet, iter_added, line_evidence, make_risk
from service.core.risks.folding import folded

KEEP = 4
MASK = "****"
PATTERNS: dict[str, re.Pattern[str]] = {
    "github_token": re.compile(
        r"\b(gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})\b"
    ),
    "slack_token": re.compile(
        r"\b(xox[bpas]-[A-Za-z0-9]{6,}-[A-Za-z0-9-]{6,}|xapp-\d-[A-Za-z0-9]{6,}-[A-Za-z0-9-]{6,}|"
        r"hooks\.slack\.com/services/T[A-Za-z0-9]{6,}/B[A-Za-z0-9]{6,}/[A-Za-z0-9]{16,})"
    ),
    "aws_key": re.compile(
        r"\b((?:AKIA|ASIA)[0-9A-Z]{16})\b|aws_secret_access_key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        re.IGNORECASE,
    ),
    "private_key": re.compile(r"(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----)"),
}
# one cheap test first: nearly no patch contains any of these words in any case (gh?_,
# github_pat_, xox, xapp-, hooks.slack, akia, asia, aws_secret, private key), so the patterns
# rarely run. Grouped by first letters, which the regex engine tries once per position; in lower
# case for may_hold_secrets.
_HINT = re.compile(
    r"gh(?:[pousr]_|ithub_pat_)|x(?:ox|app-)|hooks\.slack|a(?:kia|sia|ws_secret)|private key",
    re.IGNORECASE,
)
_HINT_LOWERED = re.compile(_HINT.pattern)
_PLACEHOLDER = re.compile(
    r"x{4,}|X{4,}|\*{3,}|\.{3}|0{8,}|your|example|dummy|placeholder|fake|sample|<|>|\$\{?",
    re.IGNORECASE,
)


def mask(secret: str) -> str:
    """The first 4 characters and ****."""
    return secret[:KEEP] + MASK


def _is_placeholder(rule: str, secret: str) -> bool:
    if rule == "private_key":
        return False
    return _PLACEHOLDER.search(secret) is not None


def may_hold_secrets(text: str) -> bool:
    """Whether `text` has a hint of a secret (`_HINT.search`): the folded text gives the same
    answer, several times faster (`folding`)."""
    return _HINT_LOWERED.search(folded(text)) is not None


def find_secrets(text: str) -> list[tuple[str, str]]:
    """(rule, secret) for every secret-looking string in one line."""
    if not may_hold_secrets(text):
        return []
    found = []
    for rule, pattern in PATTERNS.items():
        for match in pattern.finditer(text):
            secret = next(g for g in match.groups() if g) if match.groups() else match.group(0)
            if not _is_placeholder(rule, secret):
                found.append((rule, secret))
    return found


def masked_line(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        if "PRIVATE KEY" not in secret:
            text = text.replace(secret, mask(secret))
    return text


def secret_strings(pr: PullRequest, context: Context) -> Iterator[Risk]:
    """One risk per rule and file; every snippet masked."""
    grouped: dict[tuple[str, str], list[tuple[Line, str]]] = {}
    for change, line in iter_added(pr, context, lambda path: True, may_hold_secrets):
        found = find_secrets(line.text)
        if not found:
            continue
        text = masked_line(line.text, [secret for _, secret in found])
        for rule in dict.fromkeys(rule for rule, _ in found):
            grouped.setdefault((rule, change.path), []).append((line, text))
    for (rule, path), hits in grouped.items():
        yield make_risk(
            RiskKind.SECRET,
            rule,
            Severity.HIGH,
            [pr.number],
            [line_evidence(path, line, shown=text) for line, text in hits],
            path=path,
            line=hits[0][0].number,
            count=len(hits),
        )


DETECTOR = RuleSet(RiskKind.SECRET, (secret_strings,))
