"""Operator-facing English: what `verl-week doctor` prints (and the command line and the log say),
in one module, apart from the user catalogs of templates/strings/ (chat users read those, in
their language; operators read these). Each is a str.format template; none carries a secret."""

# ruff: noqa: S105 - sentences that name the token settings, not tokens

from __future__ import annotations

# doctor

# a destination typed the old way (`--to webhook:feishu`): logged when used, noted by doctor
DEPRECATED_DESTINATION = "{old} is deprecated: name this destination {new}"
DESTINATION_RENAMED = "destination {new} (the old name {old} still works, deprecated)"

# GitHub and the repositories
GITHUB_LEFT = "{remaining} of {limit} requests left until {reset:%H:%M} UTC"
GITHUB_NO_TOKEN = (
    "no GITHUB_TOKEN: {left}, too few for a week of a busy repository; create a fine-grained "
    "token with read access to Pull requests and Contents"
)
GITHUB_SPENT = "token ok, but the rate limit is spent: {left}"
GITHUB_OK = "token accepted; {left}"
REPO_FAILED = "{repo}: {error}"
REPO_NOT_FOUND = (
    "{repo}: not found, or the credentials can't see it (a private repository needs the token "
    "or app installed on it)"
)
REPO_PULLS_UNREADABLE = (
    "{repo}: its pull requests can't be read ({error}): give the credentials read access to "
    "Pull requests"
)
REPO_MOVED = "{repo} is now {named} (GitHub redirects the old name): set DIGEST_REPOS to {named}"
REPO_OK = "{repo}: {kind}, pull requests readable"

# Slack
SLACK_TOKEN_OK = "token accepted: {identity}"
SLACK_SOCKET_OK = "app token accepted: commands arrive over Socket Mode"
SLACK_NO_RECEIVER = (
    "neither SLACK_APP_TOKEN (Socket Mode, no public URL) nor SLACK_SIGNING_SECRET (requests to "
    "/slack/events) is set: /verl-week commands can't reach the service"
)
SOCKET_MODE_WITHOUT_BOT = (
    "SLACK_APP_TOKEN is set without SLACK_BOT_TOKEN: Socket Mode needs the bot token to answer"
)
SLACK_CHANNEL = "channel {channel}: {what}"
SLACK_MEMBER = "the bot is a member"
SLACK_JOINABLE = "public; the bot joins it on the first post (channels:join)"
SLACK_CHANNEL_NOT_FOUND = (
    "not found: check the id, or for a private channel invite the bot: /invite @verl-week"
)
SLACK_MISSING_SCOPE = (
    "the app lacks channels:history / groups:history: reinstall it from the manifest"
)

# Feishu: the app bot and its events
FEISHU_TOKEN_OK = "app {app_id} got a tenant_access_token"
FEISHU_CHAT_FAILED = "chat {chat}: {error}"
FEISHU_CHAT_MEMBER = "chat {chat}: the bot is a member"
FEISHU_CHAT_NOT_MEMBER = "chat {chat}: the bot is not in it: add it to the group"
FEISHU_WEBSOCKET_NEEDS_APP = "FEISHU_EVENT_MODE=websocket needs FEISHU_APP_ID and FEISHU_APP_SECRET"
FEISHU_WEBSOCKET_OK = "events arrive over the long connection (no public URL needed)"
FEISHU_HTTP_NEEDS_TOKEN = (
    "FEISHU_EVENT_MODE=http needs FEISHU_VERIFICATION_TOKEN or FEISHU_ENCRYPT_KEY from the "
    "console (Events & Callbacks → Encryption strategy); with no public URL, use "
    "FEISHU_EVENT_MODE=websocket"
)
FEISHU_NO_ENCRYPT_KEY = (
    "no FEISHU_ENCRYPT_KEY: events are checked by their token only (a key adds a signature and "
    "encryption)"
)
FEISHU_CALLBACK_UNREACHABLE = (
    "FEISHU_EVENT_MODE=http: Feishu can't reach {callback}; set PUBLIC_BASE_URL to the public "
    "address, or use FEISHU_EVENT_MODE=websocket"
)
FEISHU_EVENTS_OK = "events arrive at {callback}"

# Feishu: the custom-bot webhook
WEBHOOK_UNKNOWN_HOOK = "{host} does not know this hook: copy FEISHU_WEBHOOK_URL again"
WEBHOOK_SECRET_MISMATCH = "FEISHU_WEBHOOK_SECRET does not match the bot's secret"
WEBHOOK_WANTS_SIGNATURE = "the bot wants signed messages: set FEISHU_WEBHOOK_SECRET"
WEBHOOK_SIGNATURE_REFUSED = "signature refused: {fix}"
WEBHOOK_UNEXPECTED = "unexpected answer from {host} (code {code})"
WEBHOOK_SIGNED_OK = "{host} accepts our signature"
WEBHOOK_UNSIGNED = (
    "{host} takes unsigned messages: anyone with the URL can post; consider ticking signature "
    "verification and setting FEISHU_WEBHOOK_SECRET"
)

# the model endpoint
MODEL_UNLISTED = "{error}: LLM_MODEL {model} can't be checked before the first run"
MODEL_OK = "{host} answers and serves {model}"
MODEL_NOT_SERVED = "{host} does not serve LLM_MODEL {model}; it serves: {listed}"

# the database and PUBLIC_BASE_URL
DATABASE_EMPTY = (
    "{where} has no verl-week schema yet: `verl-week migrate` creates it (so does any command "
    "that opens the database, serve included)"
)
DATABASE_NEWER = "{where} is at revision {at}, newer than this release ({heads}): upgrade verl-week"
DATABASE_BEHIND = (
    "{where} is at revision {at}, this release needs {heads}: run `verl-week migrate` (serve and "
    "the scheduler also migrate on start)"
)
DATABASE_OK = "{where} reachable, schema at revision {at} (current)"
URL_LOCAL_WITH_CHAT = (
    "PUBLIC_BASE_URL is {url}: the cards' report links only work on this machine; set it to the "
    "address people reach the service at"
)
URL_LOCAL = "PUBLIC_BASE_URL is {url}: report links work on this machine only"
URL_QUERY = "PUBLIC_BASE_URL {url} has a query or fragment: drop it"
URL_PLAIN_HTTP = "PUBLIC_BASE_URL {url} is plain http: prefer https behind a proxy"
URL_OK = "PUBLIC_BASE_URL {url}"
