"""The SQLite store and the importers that fill it. No screens here."""

from lmmreview.db.store import Store, StoreError

__all__ = ["Store", "StoreError"]
