"""verl-week: weekly digests of a GitHub repository's merged pull requests."""

__version__ = "0.1.0"
