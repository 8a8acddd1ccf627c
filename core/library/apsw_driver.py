"""apsw behind the slice of the ``sqlite3`` API the library uses, for phones whose SQLite lacks FTS5.

apsw bundles its own SQLite (FTS5 included) and Flet's mobile index builds it for Android and iOS. Its API
is not DB-API, so this adapter gives it what Quire calls: ``connect``, ``execute`` / ``executemany``
returning a cursor with ``fetchone``, ``fetchall``, iteration, ``lastrowid`` and ``rowcount``, rows readable by name and
by position, ``close``, and ``DatabaseError`` as the base of its errors. Autocommit, as the library opens
``sqlite3`` (``isolation_level=None``): transactions are the library's own BEGIN/COMMIT.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar

import apsw

DatabaseError = apsw.Error  # the base of every apsw error (BusyError, ConstraintError, SQLError...)


class Row(tuple[Any, ...]):
    """A result row that reads like ``sqlite3.Row``: by position, by column name, and ``keys()``."""

    names: ClassVar[tuple[str, ...]] = ()
    index: ClassVar[dict[str, int]] = {}  # type: ignore[assignment]  # a column map, not tuple.index

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self.names)


# A statement's description (its columns' names and declared types) -> the class of its rows. Looked up by the
# description itself: building a tuple of names for every row made reading 1,000 rows take 4.5 times as long as
# apsw alone (0.93 ms against 0.21 ms).
_ROW_CLASSES: dict[tuple[tuple[str, str | None], ...], type[Row]] = {}


def _make_row(cursor: apsw.Cursor, values: tuple[Any, ...]) -> Row:
    description = cursor.get_description()
    found = _ROW_CLASSES.get(description)
    if found is None:
        names = tuple(column[0] for column in description)
        index: dict[str, int] = {}
        for position, name in enumerate(names):
            index.setdefault(name, position)  # like sqlite3.Row: the first column of a repeated name
        found = _ROW_CLASSES[description] = type("Row", (Row,), {"names": names, "index": index})
    return found(values)


class Cursor:
    """The results of one statement, the rowid it inserted and the rows it changed (for a write)."""

    def __init__(self, cursor: apsw.Cursor, lastrowid: int | None, rowcount: int = -1) -> None:
        self._cursor = cursor
        self.lastrowid = lastrowid
        self.rowcount = rowcount

    def __iter__(self) -> Iterator[Row]:
        return iter(self._cursor)

    def fetchone(self) -> Row | None:
        row = next(iter(self._cursor), None)
        self._cursor.close(True)  # release the statement at once (sqlite3 does so when the cursor is dropped)
        return row

    def fetchall(self) -> list[Row]:
        return list(self._cursor)


class Connection:
    """One apsw connection with the sqlite3 calls the library makes."""

    def __init__(self, path: str) -> None:
        self._conn = apsw.Connection(path)
        self._conn.row_trace = _make_row
        self.row_factory: Any = None  # accepted and ignored: rows always read by name and position

    def execute(self, sql: str, parameters: Iterable[Any] | dict[str, Any] = ()) -> Cursor:
        cursor = self._conn.cursor()
        cursor.execute(sql, parameters if isinstance(parameters, dict) else tuple(parameters))
        return Cursor(cursor, self._conn.last_insert_rowid(), self._conn.changes())

    def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> Cursor:
        cursor = self._conn.cursor()
        cursor.executemany(sql, (tuple(row) for row in rows))
        return Cursor(cursor, self._conn.last_insert_rowid())

    def create_function(self, name: str, arguments: int, function: Callable[..., Any]) -> None:
        self._conn.create_scalar_function(name, function, arguments)

    @property
    def in_transaction(self) -> bool:
        return not self._conn.get_autocommit()

    def close(self) -> None:
        self._conn.close()


def connect(path: str, **_options: Any) -> Connection:
    """Open a database (``check_same_thread`` and ``isolation_level`` need nothing: apsw is serialized and
    autocommits)."""
    return Connection(path)
