"""Secret-looking strings in added lines, masked in the evidence."""

from __future__ import annotations

import pytest

from service.core.models import CollectedPeriod, FileChange, Risk, Severity
from service.core.profile import RepoProfile
from service.core.risks import secrets
from service.core.risks.base import Context
from tests.core.risks.helpers import LABELS, change, make_pr, week_context

# built at run time so that no complete token-shaped string is ever committed
GITHUB = "gh" + "p_" + "A1b2C3d4E5f6G7h8I9j0" + "K1l2M3n4O5p6Q7R8"  # 36 after the prefix
SLACK = "xo" + "xb-" + "1234567890" + "-" + "0987654321" + "-" + "AbCdEfGhIjKlMnOpQrStUv"
HOOK = "hooks.slack" + ".com/services/" + "T0ABCDEFG/" + "B0HIJKLMN/" + "abcdEFGHijklMNOPqrstUVWX"
AWS_ID = "AK" + "IA" + "Q3EGRT7Y2LPX9MNB"
AWS_SECRET = "wJalr" + "XUtnFEMI/K7MDENG/" + "bPxRfiCYzq8Lk2Nd9T"
PEM = "-----BEGIN " + "RSA PRIVATE KEY-----"


def run(files: list[FileChange], profile: RepoProfile) -> list[Risk]:
    pr = make_pr(500, "[ci] chore: x", files)
    return secrets.DETECTOR.detect([pr], Context(profile=profile))


def added(path: str, line: str) -> FileChange:
    return change(path, f"@@ -3,1 +3,2 @@\n ctx\n+{line}")


@pytest.mark.parametrize(
    ("line", "rule", "secret"),
    [
        (f'GITHUB_TOKEN="{GITHUB}"', "github_token", GITHUB),
        (f"SLACK_BOT_TOKEN={SLACK}", "slack_token", SLACK),
        (f"webhook: https://{HOOK}", "slack_token", HOOK),
        (f"aws_access_key_id = {AWS_ID}", "aws_key", AWS_ID),
        (f"aws_secret_access_key = {AWS_SECRET}", "aws_key", AWS_SECRET),
        (PEM, "private_key", PEM),
    ],
)
def test_secret_is_flagged_and_masked(
    line: str, rule: str, secret: str, verl_profile: RepoProfile
) -> None:
    (risk,) = run([added("scripts/deploy.sh", line)], verl_profile)
    assert (risk.rule, risk.severity) == (rule, Severity.HIGH)
    snippet = risk.evidence[0].snippet
    assert risk.evidence[0].line == 4
    if rule != "private_key":
        assert secret not in snippet
        assert secret[:4] + "****" in snippet
    assert secret not in str(risk.params)


@pytest.mark.parametrize(
    "line",
    [
        "SLACK_BOT_TOKEN=xoxb-your-token",
        "SLACK_BOT_TOKEN=xoxb-xxxxxxxxxx-xxxxxxxxxx-xxxxxxxxxxxx",
        "GITHUB_TOKEN=ghp_xxxx",
        "GITHUB_TOKEN=ghp_" + "x" * 36,
        "aws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE",
        "token: ${GITHUB_TOKEN}",
        "-----BEGIN PUBLIC KEY-----",
    ],
)
def test_placeholders_are_not_secrets(line: str, verl_profile: RepoProfile) -> None:
    assert run([added("docs/deploy.md", line)], verl_profile) == []


def test_deleted_secret_is_not_flagged(verl_profile: RepoProfile) -> None:
    patch = f"@@ -3,2 +3,1 @@\n ctx\n-TOKEN={GITHUB}\n"
    assert run([change(".github/workflows/x.yml", patch)], verl_profile) == []


def test_mask_keeps_four_characters() -> None:
    assert secrets.mask(GITHUB) == "ghp_****"


def test_real_weeks_have_no_secrets(
    weeks: dict[str, CollectedPeriod], verl_profile: RepoProfile
) -> None:
    for label in LABELS:
        context = week_context(weeks, label, verl_profile)
        assert secrets.DETECTOR.detect(weeks[label].prs, context) == []


def test_upper_case_and_non_ascii_lines_are_still_read(verl_profile: RepoProfile) -> None:
    """The cheap first look at a patch lowers ASCII text; text with other characters (here a
    Chinese comment, and `ſ`, which matches `s` when case is ignored) takes the regex itself."""
    lines = [
        f"AWS_SECRET_ACCESS_KEY = {AWS_SECRET}",
        f"# 部署密钥 aws_ſecret_access_key = {AWS_SECRET}",
        f"# 令牌 {GITHUB}",
    ]
    for line in lines:
        (risk,) = run([added("scripts/deploy.sh", line)], verl_profile)
        assert risk.rule in ("aws_key", "github_token"), line


def test_the_hint_test_of_a_patch_is_the_hint_regex(weeks: dict[str, CollectedPeriod]) -> None:
    """may_hold_secrets answers what `_HINT.search` answers, on every recorded patch and on
    text built to sit at the edges of ignoring case."""
    texts = [f.patch for label in LABELS for pr in weeks[label].prs for f in pr.files if f.patch]
    texts += [
        *("GHP_", "Github_Pat_", "XoX", "XAPP-", "Hooks.Slack", "akia", "AsIa", "AWS_SECRET"),
        *("Private Key", "aws_ſecret", "KEY ak\u0130a", "\u212aey", "gh p_", "xo x", "plain"),
    ]
    assert any(secrets.may_hold_secrets(text) for text in texts)
    for text in texts:
        assert secrets.may_hold_secrets(text) == bool(secrets._HINT.search(text)), text[:80]
