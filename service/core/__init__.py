"""The pure analysis core: PRs, weeks, risks and digests; no network, database or platform."""
