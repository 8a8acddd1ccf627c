"""Each book's index state (the ``book_index`` table): the model it is embedded with, how far, and why it stopped."""

from __future__ import annotations

import sqlite3

from core.library.db import now
from core.library.store import Library


class IndexStore:
    """The ``book_index`` rows: one per book that was ever indexed."""

    def __init__(self, library: Library) -> None:
        self.library = library

    def row(self, book_id: int) -> sqlite3.Row | None:
        """The book's saved state, or None when it was never indexed."""
        row: sqlite3.Row | None = self.library.conn.execute(
            "SELECT * FROM book_index WHERE book_id = ?", (book_id,)
        ).fetchone()
        return row

    def begin(self, book_id: int, model: str, dimension: int, done: int, total: int) -> None:
        """A run starts: the model, its size, what is embedded already of how many passages, and no error."""
        self.library.write(
            "INSERT INTO book_index (book_id, model, dimension, status, done, total, error, updated_at) "
            "VALUES (?,?,?,?,?,?,'',?) ON CONFLICT(book_id) DO UPDATE SET model = excluded.model, "
            "dimension = excluded.dimension, status = excluded.status, done = excluded.done, total = excluded.total, "
            "error = '', updated_at = excluded.updated_at",
            (book_id, model, dimension, "running", done, total, now()),
        )

    def set(self, book_id: int, **fields: object) -> None:
        """Change the named columns (``status``, ``done``, ``error``)."""
        assignments = ", ".join(f"{name} = ?" for name in fields)
        self.library.write(
            f"UPDATE book_index SET {assignments}, updated_at = ? WHERE book_id = ?", (*fields.values(), now(), book_id)
        )

    @staticmethod
    def advance(conn: sqlite3.Connection, book_id: int, done: int) -> None:
        """How many passages are embedded now, in the transaction that stored their vectors."""
        conn.execute("UPDATE book_index SET done = ?, updated_at = ? WHERE book_id = ?", (done, now(), book_id))

    def models(self, book_id: int | None) -> list[str]:
        """Models with at least one vector in the book (or the library)."""
        sql = "SELECT DISTINCT model FROM book_index WHERE done > 0" + (
            " AND book_id = ?" if book_id is not None else ""
        )
        return [r[0] for r in self.library.conn.execute(sql, (book_id,) if book_id is not None else ())]
