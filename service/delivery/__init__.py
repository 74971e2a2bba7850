"""Where a digest goes and how: the idempotent outbox (intent → send → id), the routes of a
repository's cards and the cadence of each destination."""
