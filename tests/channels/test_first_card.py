"""The README's first card: no public URL, no GitHub token. `verl-week post --sample --to …`
puts the bundled verl week in a Feishu group through its custom bot, or in a Slack channel
with only a bot token, and GitHub is never asked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.channels.conftest import ROOT, chinese
from tests.fakes.feishu import serve_feishu
from tests.fakes.feishu_signing import sign_feishu_webhook
from tests.fakes.slack import BOT_TOKEN, running_fake_slack

HOOK_SECRET = "first-card-hook-secret"
SAMPLE_WEEK = "2026-W04"


def verl_week(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.upper().endswith("_PROXY")}
    return subprocess.run(
        [sys.executable, "-m", "service", *args],
        cwd=folder,
        env={**base, "PYTHONPATH": str(ROOT), "GITHUB_API_URL": "http://127.0.0.1:9", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_first_card_through_the_feishu_custom_bot(tmp_path: Path) -> None:
    with serve_feishu(hook_secret=HOOK_SECRET) as feishu:
        env = {
            "FEISHU_WEBHOOK_URL": feishu.hook_url,
            "FEISHU_WEBHOOK_SECRET": HOOK_SECRET,
            "FEISHU_WEBHOOK_LANGUAGE": "en",
        }
        checked = verl_week(tmp_path, "doctor", **env)
        assert "ok       webhook" in checked.stdout
        assert "accepts our signature" in checked.stdout
        done = verl_week(tmp_path, "post", "--sample", "--to", "feishu-webhook:default", **env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("feishu-webhook:default\tposted\t")
        [card] = feishu.hook_cards
        assert card["header"]["title"]["content"] == f"volcengine/verl weekly · {SAMPLE_WEEK}"
        assert sign_feishu_webhook("0", HOOK_SECRET)  # the fake checked a real signature
        again = verl_week(tmp_path, "post", "--sample", "--to", "feishu-webhook:default", **env)
        assert again.stdout.startswith("feishu-webhook:default\tskipped\t")
        assert len(feishu.hook_cards) == 1
        assert HOOK_SECRET not in done.stdout + done.stderr + checked.stdout


def test_a_first_card_in_slack_with_a_bot_token_only(tmp_path: Path) -> None:
    with running_fake_slack() as slack:
        env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_API_URL": slack.api_url}
        done = verl_week(tmp_path, "post", "--sample", "--to", "slack:C1", **env)
        assert done.returncode == 0, done.stderr
        [card] = slack.messages("C1")
        assert chinese(card["text"])  # DIGEST_LANGUAGE's default
        assert slack.violations == []
