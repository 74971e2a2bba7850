"""fuzz tests (issue 7)."""
