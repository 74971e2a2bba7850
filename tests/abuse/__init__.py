"""abuse tests (issue 7)."""
