"""The weekly pipeline: a run's lease and retries, recorded weeks, the model-written part and its
verification, and the job that joins them (collect → store → digest → deliver)."""
