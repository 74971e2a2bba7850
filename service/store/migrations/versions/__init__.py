"""One module per schema revision, oldest first (`v0001_initial` is the schema of 0.1)."""
