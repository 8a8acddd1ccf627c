"""Reading statistics: each device's reading per book and day (seconds, characters read on, sessions), counted as
places are saved, and read back as totals, days, weeks, speeds and the time left.

Time is what the reader spends on a shown page, pauses capped (the reader screen counts at most five minutes of a
page left alone). Characters are those of the paragraphs passed by reading (page turns, scrolling on; a jump
reads nothing). A session starts when a book is read again after half an hour away. Days are the reader's local
dates. Each device keeps its own rows; sync brings the other devices' rows whole, so nothing is counted twice.
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from core.library.db import now
from core.sync import store as sync_store

SESSION_GAP = timedelta(minutes=30)  # read again after this long away: a new session
MIN_SPEED_SECONDS = 300  # a speed (and the time left from it) needs five minutes of pages read (several pages:
MIN_SPEED_CHARS = 1_500  # one page's pace says little) and some text; before, the reader sees no estimate at all


@dataclass(frozen=True, slots=True)
class DayCount:
    """One device's reading of one book on one day, as it now stands."""

    day: str
    seconds: float
    chars: int
    sessions: int

    def record(self) -> dict[str, Any]:
        return {"seconds": round(self.seconds, 1), "chars": self.chars, "sessions": self.sessions}


def today() -> str:
    return datetime.now().astimezone().date().isoformat()


def count_reading(
    conn: sqlite3.Connection,
    book_id: int,
    was: int | None,
    ordinal: int,
    read_seconds: float,
    reading: bool,
    read_chars: int | None = None,
) -> DayCount | None:
    """Add a saved place to today's row of this device (inside the caller's transaction): the seconds spent, the
    characters read (``read_chars``, as the reader counted them: the page turned; else those of the paragraphs
    from ``was``, the place before, to ``ordinal`` when the move was reading), and a session when this book was
    last read here long enough ago. None when nothing was read."""
    chars = max(0, read_chars or 0)
    if read_chars is None and reading and was is not None and ordinal > was:
        chars = int(conn.execute(
            "SELECT COALESCE(SUM(LENGTH(text)), 0) FROM segments WHERE book_id = ? AND ordinal > ? AND ordinal <= ? "
            "AND kind != 'image'",
            (book_id, was, ordinal),
        ).fetchone()[0])  # fmt: skip
    if read_seconds <= 0 and chars == 0:
        return None
    day, device = today(), sync_store.device_id(conn)
    last = conn.execute(
        "SELECT MAX(last_at) FROM reading_days WHERE book_id = ? AND device = ?", (book_id, device)
    ).fetchone()[0]
    away = _since(last) > SESSION_GAP  # this book was last read here long enough ago (or never)
    conn.execute(
        "INSERT INTO reading_days (book_id, device, day, seconds, chars, sessions, last_at) VALUES (?,?,?,?,?,?,?) "
        "ON CONFLICT (book_id, device, day) DO UPDATE SET seconds = seconds + excluded.seconds, "
        "chars = chars + excluded.chars, sessions = sessions + excluded.sessions, last_at = excluded.last_at",
        (book_id, device, day, read_seconds, chars, int(away), now()),
    )
    row = conn.execute(
        "SELECT seconds, chars, sessions FROM reading_days WHERE book_id = ? AND device = ? AND day = ?",
        (book_id, device, day),
    ).fetchone()
    return DayCount(day, float(row[0]), int(row[1]), int(row[2]))


def _since(stamp: str | None) -> timedelta:
    if not stamp:
        return timedelta.max
    try:
        then = datetime.fromisoformat(stamp)
    except ValueError:
        return timedelta.max
    if then.tzinfo is None:
        then = then.astimezone()
    return datetime.now(then.tzinfo) - then


def store_synced_day(conn: sqlite3.Connection, book_id: int, device: str, day: str, value: dict[str, Any]) -> None:
    """A device's reading of a book that day, as sync brought it: another device's row is replaced whole (never
    added to); this device's own row only grows (it comes back after the book was removed and imported again)."""
    numbers = (float(value.get("seconds", 0)), int(value.get("chars", 0)), int(value.get("sessions", 0)))
    if device != sync_store.device_id(conn):
        conn.execute(
            "INSERT OR REPLACE INTO reading_days (book_id, device, day, seconds, chars, sessions) VALUES (?,?,?,?,?,?)",
            (book_id, device, day, *numbers),
        )
        return
    conn.execute(
        "INSERT INTO reading_days (book_id, device, day, seconds, chars, sessions) VALUES (?,?,?,?,?,?) "
        "ON CONFLICT (book_id, device, day) DO UPDATE SET seconds = MAX(seconds, excluded.seconds), "
        "chars = MAX(chars, excluded.chars), sessions = MAX(sessions, excluded.sessions)",
        (book_id, device, day, *numbers),
    )


@dataclass(frozen=True, slots=True)
class BookStats:
    """One book's reading: time, characters read, sessions, speed and the time left at that speed."""

    book_id: int
    title: str
    seconds: float
    chars: int
    sessions: int
    days: int
    chars_per_minute: float | None  # None until there is enough reading to tell
    minutes_left: float | None  # the rest of the book at the reader's speed (None: no speed yet)
    chapter_minutes_left: float | None


@dataclass(frozen=True, slots=True)
class StatsReport:
    """Everything the statistics screen and ``quire stats`` show."""

    seconds: float
    chars: int
    sessions: int
    days: dict[str, float]  # local date: seconds read that day (every book, every device)
    weeks: list[tuple[str, float]]  # (Monday's date, seconds) for the last weeks, oldest first
    books: list[BookStats] = field(default_factory=list)
    streak: int = 0  # days in a row with reading, up to today (or yesterday)

    def to_dict(self) -> dict[str, Any]:
        found = asdict(self)
        found["weeks"] = [{"week": w, "seconds": round(s, 1)} for w, s in self.weeks]
        return found


def report(conn: sqlite3.Connection, book_id: int | None = None, weeks: int = 12) -> StatsReport:
    """Totals by book, by day and by week (every device), for one book or all."""
    where, args = ("WHERE r.book_id = ?", (book_id,)) if book_id is not None else ("", ())
    days: dict[str, float] = {}
    for day, seconds in conn.execute(f"SELECT day, SUM(seconds) FROM reading_days r {where} GROUP BY day", args):
        days[day] = float(seconds)
    books = [_book(conn, *row) for row in conn.execute(
        "SELECT r.book_id, b.title, SUM(r.seconds), SUM(r.chars), SUM(r.sessions), COUNT(DISTINCT r.day) "
        f"FROM reading_days r JOIN books b ON b.id = r.book_id {where} GROUP BY r.book_id ORDER BY SUM(r.seconds) DESC",
        args,
    )]  # fmt: skip
    monday = date.fromisoformat(today()) - timedelta(days=date.fromisoformat(today()).weekday())
    starts = [monday - timedelta(weeks=n) for n in range(weeks - 1, -1, -1)]
    by_week = [
        (start.isoformat(), sum(s for d, s in days.items() if start <= date.fromisoformat(d) < start + timedelta(7)))
        for start in starts
    ]
    return StatsReport(
        sum(b.seconds for b in books), sum(b.chars for b in books), sum(b.sessions for b in books), days, by_week,
        books, _streak(days),
    )  # fmt: skip


def _book(
    conn: sqlite3.Connection, book_id: int, title: str, seconds: float, chars: int, sessions: int, days: int
) -> BookStats:
    speed = _speed(seconds, chars)
    left = chapter_left = None
    if speed is not None:
        place = conn.execute("SELECT ordinal FROM positions WHERE book_id = ?", (book_id,)).fetchone()
        at = int(place[0]) if place is not None and place[0] is not None else -1
        chapter, rest = chars_left(conn, book_id, at)
        left, chapter_left = rest / speed, chapter / speed
    return BookStats(book_id, title, float(seconds), int(chars), int(sessions), int(days),
                     round(speed, 1) if speed else None, _round(left), _round(chapter_left))  # fmt: skip


def _speed(seconds: float, chars: int) -> float | None:
    """Characters a minute, once there is enough reading to tell."""
    return chars / (seconds / 60) if seconds >= MIN_SPEED_SECONDS and chars >= MIN_SPEED_CHARS else None


def section_chars(conn: sqlite3.Connection, book_id: int) -> dict[int, int]:
    """Characters of text in each section of a book (its text never changes: a caller may keep this)."""
    rows = conn.execute(
        "SELECT section_idx, SUM(LENGTH(text)) FROM segments WHERE book_id = ? AND kind != 'image' GROUP BY section_idx",
        (book_id,),
    )
    return {int(section): int(chars) for section, chars in rows}


def chars_left(
    conn: sqlite3.Connection, book_id: int, at: int, sections: dict[int, int] | None = None
) -> tuple[int, int]:
    """Characters of text after segment ``at`` (-1: the whole book): to its chapter's end, and to the book's end.
    Only the rest of the chapter is read; later chapters are counted from ``sections`` (``section_chars``)."""
    row = conn.execute(
        "SELECT section_idx, idx FROM segments WHERE book_id = ? AND ordinal = ?", (book_id, max(at, 0))
    ).fetchone()
    if row is None:
        return 0, 0
    section, idx = int(row[0]), int(row[1])
    chapter = conn.execute(
        "SELECT COALESCE(SUM(LENGTH(text)), 0) FROM segments WHERE book_id = ? AND section_idx = ? AND idx > ? "
        "AND kind != 'image'",
        (book_id, section, idx if at >= 0 else idx - 1),
    ).fetchone()[0]
    totals = sections if sections is not None else section_chars(conn, book_id)
    return int(chapter), int(chapter) + sum(chars for number, chars in totals.items() if number > section)


def minutes_left(
    conn: sqlite3.Connection, book_id: int, at: int, sections: dict[int, int] | None = None
) -> tuple[float, float] | None:
    """Minutes left in the chapter and in the book from segment ``at``, at the reader's own speed in this book
    (every device); None until there is enough reading to tell."""
    seconds, chars = conn.execute(
        "SELECT COALESCE(SUM(seconds), 0), COALESCE(SUM(chars), 0) FROM reading_days WHERE book_id = ?", (book_id,)
    ).fetchone()
    speed = _speed(float(seconds), int(chars))
    if speed is None:
        return None
    chapter, rest = chars_left(conn, book_id, at, sections)
    return chapter / speed, rest / speed


def _round(value: float | None) -> float | None:
    return round(value, 1) if value is not None else None


def _streak(days: dict[str, float]) -> int:
    day = date.fromisoformat(today())
    if day.isoformat() not in days:
        day -= timedelta(days=1)  # not read yet today: the streak so far still counts
    count = 0
    while day.isoformat() in days:  # a day has a row only when something was read (time or paragraphs)
        count += 1
        day -= timedelta(days=1)
    return count


def every_day(conn: sqlite3.Connection) -> list[tuple[int, str, str, float, int, int]]:
    """(book, device, day, seconds, characters, sessions) of every device's reading of every book, as sync sends
    it."""
    return conn.execute("SELECT book_id, device, day, seconds, chars, sessions FROM reading_days").fetchall()
