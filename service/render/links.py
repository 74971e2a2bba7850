"""Where the service serves a week's full report: the one place that builds that URL."""

from __future__ import annotations


def report_url(public_base_url: str, repo: str, week: str) -> str:
    """`PUBLIC_BASE_URL/reports/<owner>/<repo>/<week>`, as service/web.py routes it."""
    return f"{public_base_url.rstrip('/')}/reports/{repo}/{week}"
