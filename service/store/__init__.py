"""The store: SQLAlchemy 2 on DATABASE_URL (SQLite by default, Postgres by URL)."""
