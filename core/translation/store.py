"""The translations kept per paragraph, language and model (``translations``): their SQL lives here only."""

from __future__ import annotations

from core.library import Library


def kept(library: Library, book_id: int, ordinal: int, target: str, model_key: str) -> str | None:
    """A paragraph's translation into ``target`` by this model, kept earlier (None: not yet)."""
    row = library.conn.execute(
        "SELECT text FROM translations WHERE book_id = ? AND ordinal = ? AND language = ? AND model = ?",
        (book_id, ordinal, target, model_key),
    ).fetchone()
    return str(row[0]) if row is not None else None


def keep(library: Library, book_id: int, ordinal: int, target: str, model_key: str, text: str) -> None:
    """Keep a whole translation, for the next time it is asked for."""
    with library.transaction() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO translations (book_id, ordinal, language, model, text) VALUES (?, ?, ?, ?, ?)",
            (book_id, ordinal, target, model_key, text),
        )
