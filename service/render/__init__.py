"""Pure rendering: Digest and answers → Markdown, HTML, JSON, Slack blocks, Feishu cards."""
