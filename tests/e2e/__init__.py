"""e2e tests (issue 7)."""
