"""Alembic revisions of the store schema (`versions/`); `service.store.schema` runs them."""
