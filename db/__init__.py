"""The SQLite store and the importers that fill it. No screens here."""

from db.store import Store, StoreError

__all__ = ["Store", "StoreError"]
