"""Operator-facing English: what `verl-week doctor` prints (and the command line and the log say),
in one module, apart from the user catalogs of templates/strings/ (chat users read those, in
their language; operators read these)."""

from __future__ import annotations

# doctor

# a destination typed the old way (`--to webhook:feishu`): logged when used, noted by doctor
DEPRECATED_DESTINATION = "{old} is deprecated: name this destination {new}"
DESTINATION_RENAMED = "destination {new} (the old name {old} still works, deprecated)"
SOCKET_MODE_WITHOUT_BOT = (
    "SLACK_APP_TOKEN is set without SLACK_BOT_TOKEN: Socket Mode needs the bot token to answer"
)
