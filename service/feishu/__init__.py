"""Feishu / Lark adapter: tenant token, im/v1 messages, custom-bot webhook, inbound events."""
