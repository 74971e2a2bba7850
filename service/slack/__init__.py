"""Slack adapter: the bolt app (commands, buttons) and the SlackSender (weekly card)."""
