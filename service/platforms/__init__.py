"""Chat platforms behind one seam: the interface (base.py), the registry (registry.py) and the
built-in platforms (slack.py; feishu.py: the app bot and the custom-bot webhook)."""
