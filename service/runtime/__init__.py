"""What runs: the HTTP app of `serve` and the scheduler of every cadence."""
