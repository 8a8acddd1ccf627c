"""Numbered, append-only schema migrations for the library database. Never edit a shipped one."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

from core.library.fts import index_text
from core.library.shelf import shelf_keys
from core.sync.store import legacy_uid, upgrade_key


def m001_initial(conn: sqlite3.Connection) -> None:
    """Books, their sections, segments and TOC, reading state, and full-text search."""
    _run(
        conn,
        """
        CREATE TABLE books (
            id INTEGER PRIMARY KEY,
            content_hash TEXT NOT NULL UNIQUE,
            format TEXT NOT NULL,
            title TEXT NOT NULL,
            authors TEXT NOT NULL DEFAULT '[]',
            language TEXT NOT NULL DEFAULT '',
            publisher TEXT NOT NULL DEFAULT '',
            identifiers TEXT NOT NULL DEFAULT '[]',
            description TEXT NOT NULL DEFAULT '',
            cover BLOB,
            cover_media_type TEXT NOT NULL DEFAULT '',
            file_name TEXT NOT NULL,
            file_size INTEGER NOT NULL,
            segment_count INTEGER NOT NULL,
            char_count INTEGER NOT NULL,
            warnings TEXT NOT NULL DEFAULT '[]',
            imported_at TEXT NOT NULL
        );
        CREATE TABLE sections (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            title TEXT NOT NULL,
            href TEXT NOT NULL DEFAULT '',
            linear INTEGER NOT NULL DEFAULT 1,
            first_ordinal INTEGER NOT NULL,
            segment_count INTEGER NOT NULL,
            PRIMARY KEY (book_id, idx)
        );
        CREATE TABLE segments (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            section_idx INTEGER NOT NULL,
            idx INTEGER NOT NULL,
            ordinal INTEGER NOT NULL,
            kind TEXT NOT NULL,
            level INTEGER NOT NULL DEFAULT 0,
            text TEXT NOT NULL,
            spans TEXT,
            src TEXT,
            anchors TEXT,
            UNIQUE (book_id, ordinal),
            UNIQUE (book_id, section_idx, idx)
        );
        CREATE TABLE toc (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            parent_idx INTEGER,
            depth INTEGER NOT NULL,
            title TEXT NOT NULL,
            section_idx INTEGER,
            segment_idx INTEGER,
            PRIMARY KEY (book_id, idx)
        );
        CREATE TABLE positions (
            book_id INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
            locator TEXT NOT NULL,
            ordinal INTEGER NOT NULL,
            percent REAL NOT NULL,
            reading_seconds REAL NOT NULL DEFAULT 0,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE bookmarks (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            locator TEXT NOT NULL,
            ordinal INTEGER NOT NULL,
            label TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL
        );
        CREATE INDEX bookmarks_book ON bookmarks (book_id, ordinal);
        CREATE TABLE highlights (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            start_locator TEXT NOT NULL,
            end_locator TEXT NOT NULL,
            start_ordinal INTEGER NOT NULL,
            color TEXT NOT NULL,
            note TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX highlights_book ON highlights (book_id, start_ordinal);
        CREATE TABLE book_tags (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (book_id, tag)
        );
        CREATE VIRTUAL TABLE segments_fts USING fts5(body, book_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
        """,
    )


def m002_retrieval(conn: sqlite3.Connection) -> None:
    """Chunks for retrieval, their keyword index, their vectors, and each book's index state."""
    _run(
        conn,
        """
        CREATE TABLE chunk_sets (
            book_id INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
            tokenizer TEXT NOT NULL,
            target_tokens INTEGER NOT NULL,
            overlap REAL NOT NULL,
            chunk_count INTEGER NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            section_idx INTEGER NOT NULL,
            start_ordinal INTEGER NOT NULL,
            start_offset INTEGER NOT NULL,
            end_ordinal INTEGER NOT NULL,
            end_offset INTEGER NOT NULL,
            tokens INTEGER NOT NULL,
            text TEXT NOT NULL,
            UNIQUE (book_id, idx)
        );
        CREATE INDEX chunks_book_end ON chunks (book_id, end_ordinal);
        CREATE VIRTUAL TABLE chunks_fts USING fts5(body, book_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
        CREATE TABLE chunk_vectors (
            chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
            book_id INTEGER NOT NULL,
            model TEXT NOT NULL,
            embedding BLOB NOT NULL
        );
        CREATE INDEX chunk_vectors_model_book ON chunk_vectors (model, book_id);
        CREATE TABLE book_index (
            book_id INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            dimension INTEGER NOT NULL,
            status TEXT NOT NULL,
            done INTEGER NOT NULL DEFAULT 0,
            total INTEGER NOT NULL DEFAULT 0,
            error TEXT NOT NULL DEFAULT '',
            updated_at TEXT NOT NULL
        );
        """,
    )


def m003_chat(conn: sqlite3.Connection) -> None:
    """Chat threads per book, messages, and each message's ordered parts."""
    _run(
        conn,
        """
        CREATE TABLE threads (
            id INTEGER PRIMARY KEY,
            book_id INTEGER REFERENCES books(id) ON DELETE CASCADE,
            title TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX threads_book ON threads (book_id, updated_at);
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            thread_id INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
            role TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'complete',
            created_at TEXT NOT NULL
        );
        CREATE TABLE message_parts (
            message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            kind TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (message_id, idx)
        );
        """,
    )


def m004_stemmed_chunk_keywords(conn: sqlite3.Connection) -> None:
    """Chunk keywords with Porter stemming, so "rabbits" finds "rabbit".

    m002 shipped without it, and migrations are never edited once shipped: this one rebuilds the keyword index
    from the chunk texts, whatever m002 made (the same words, now stemmed), in batches to keep memory flat.
    """
    conn.execute("DROP TABLE chunks_fts")
    conn.execute(
        "CREATE VIRTUAL TABLE chunks_fts USING fts5(body, book_id UNINDEXED, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    last = -1
    while True:
        rows = conn.execute(
            "SELECT id, book_id, text FROM chunks WHERE id > ? ORDER BY id LIMIT 2000", (last,)
        ).fetchall()
        if not rows:
            return
        conn.executemany(
            "INSERT INTO chunks_fts (rowid, body, book_id) VALUES (?,?,?)",
            [(r[0], index_text(r[2]), r[1]) for r in rows],
        )
        last = rows[-1][0]


def m005_furthest_place(conn: sqlite3.Connection) -> None:
    """The furthest place read, kept apart from the current place (a jump back lowers neither it nor "% read").

    An existing library starts with furthest = current: the best it knows.
    """
    _run(
        conn,
        """
        ALTER TABLE positions ADD COLUMN furthest_locator TEXT;
        ALTER TABLE positions ADD COLUMN furthest_ordinal INTEGER;
        ALTER TABLE positions ADD COLUMN furthest_percent REAL;
        UPDATE positions SET furthest_locator = locator, furthest_ordinal = ordinal, furthest_percent = percent
        """,
    )


def m006_simplified_search_text(conn: sqlite3.Connection) -> None:
    """Search text folds traditional Chinese characters to simplified, so either form finds both.

    The keyword indexes of books already imported are rebuilt from their stored text, in batches.
    """
    for table, source in (("segments_fts", "segments"), ("chunks_fts", "chunks")):
        last = -1
        while True:
            rows = conn.execute(
                f"SELECT id, book_id, text FROM {source} WHERE id > ? ORDER BY id LIMIT 2000", (last,)
            ).fetchall()
            if not rows:
                break
            conn.executemany(f"DELETE FROM {table} WHERE rowid = ?", [(r[0],) for r in rows])
            conn.executemany(
                f"INSERT INTO {table} (rowid, body, book_id) VALUES (?,?,?)",
                [(r[0], index_text(r[2]), r[1]) for r in rows],
            )
            last = rows[-1][0]


def m007_sync(conn: sqlite3.Connection) -> None:
    """Sync's own bookkeeping: the merged records, the log files applied, this device's unsent changes; and when
    the reader last edited a book's title or authors (an unedited title is the file's, and never overrides an edit
    made on another device)."""
    _run(
        conn,
        """
        CREATE TABLE sync_state (key TEXT PRIMARY KEY, entry TEXT NOT NULL);
        CREATE TABLE sync_seen (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL);
        CREATE TABLE sync_outbox (seq INTEGER PRIMARY KEY, body BLOB NOT NULL);
        CREATE TABLE sync_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        ALTER TABLE books ADD COLUMN edited_at TEXT
        """,
    )


def m008_sync_journal(conn: sqlite3.Connection) -> None:
    """Sync from the reader's acts: edits recorded as they are made (``sync_pending``), the log files this
    device sent (kept until compacted, to rewrite one found damaged), and an identity for every highlight and
    bookmark (two on one span stay two). Old notes get identities derived from their span, the same on every
    device, and the merged state is rekeyed to match."""
    _run(
        conn,
        """
        CREATE TABLE sync_pending (key TEXT PRIMARY KEY, stamp TEXT NOT NULL, value TEXT NOT NULL);
        CREATE TABLE sync_sent (seq INTEGER PRIMARY KEY, body BLOB NOT NULL);
        ALTER TABLE highlights ADD COLUMN uid TEXT;
        ALTER TABLE bookmarks ADD COLUMN uid TEXT
        """,
    )
    for table, place in (("highlights", "start_locator || '/' || end_locator"), ("bookmarks", "locator")):
        rows = conn.execute(
            f"SELECT t.id, b.content_hash, {place} FROM {table} t JOIN books b ON b.id = t.book_id ORDER BY t.id"
        ).fetchall()
        taken: set[str] = set()
        for row_id, content_hash, span in rows:
            uid = legacy_uid(content_hash, *span.split("/"))
            uid = uid if uid not in taken else legacy_uid(content_hash, *span.split("/"), str(row_id))
            taken.add(uid)
            conn.execute(f"UPDATE {table} SET uid = ? WHERE id = ?", (uid, row_id))
        conn.execute(f"CREATE UNIQUE INDEX {table}_uid ON {table} (uid)")
    for key, entry in conn.execute("SELECT key, entry FROM sync_state").fetchall():
        upgraded = upgrade_key(key, json.loads(entry)["value"]) if not key.startswith("furthest/") else None
        if upgraded is not None:
            state = json.loads(entry)
            conn.execute("DELETE FROM sync_state WHERE key = ?", (key,))
            conn.execute(
                "INSERT OR REPLACE INTO sync_state VALUES (?, ?)",
                (upgraded[0], json.dumps({**state, "value": upgraded[1]}, ensure_ascii=False)),
            )


# The full-text tables keep only their index: the text they index is in segments and chunks already (the same
# row ids), and no query reads it back from them. Deleting from such a table needs SQLite 3.43 (db.py checks).
SEGMENTS_FTS = (
    "CREATE VIRTUAL TABLE segments_fts USING fts5(body, content = '', contentless_delete = 1, "
    "tokenize = 'unicode61 remove_diacritics 2')"
)
CHUNKS_FTS = (
    "CREATE VIRTUAL TABLE chunks_fts USING fts5(body, content = '', contentless_delete = 1, "
    "tokenize = 'porter unicode61 remove_diacritics 2')"
)


def m009_index_only_search(conn: sqlite3.Connection) -> None:
    """The full-text tables stop keeping a second copy of every book's text (a third of the file): each is made
    again as an index alone (FTS5 contentless, with deletes), filled from the stored text in batches."""
    for table, source, create in (("segments_fts", "segments", SEGMENTS_FTS), ("chunks_fts", "chunks", CHUNKS_FTS)):
        conn.execute(f"DROP TABLE {table}")
        conn.execute(create)
        last = -1
        while True:
            rows = conn.execute(
                f"SELECT id, text FROM {source} WHERE id > ? ORDER BY id LIMIT 2000", (last,)
            ).fetchall()
            if not rows:
                break
            conn.executemany(
                f"INSERT INTO {table} (rowid, body) VALUES (?,?)", [(r[0], index_text(r[1])) for r in rows]
            )
            last = rows[-1][0]


def m010_covers_apart(conn: sqlite3.Connection) -> None:
    """Covers move to their own table: a column after a picture in a row is read through the picture's overflow
    pages, so every refresh of the library screen read every cover (520 books with 80 KB covers: 32.9 ms)."""
    _run(
        conn,
        """
        CREATE TABLE IF NOT EXISTS book_covers (
            book_id INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
            picture BLOB NOT NULL,
            media_type TEXT NOT NULL DEFAULT ''
        );
        INSERT OR IGNORE INTO book_covers SELECT id, cover, cover_media_type FROM books WHERE cover IS NOT NULL;
        ALTER TABLE books DROP COLUMN cover;
        ALTER TABLE books DROP COLUMN cover_media_type
        """,
    )


def m011_name_mentions(conn: sqlite3.Connection) -> None:
    """X-Ray's raw material: every capitalised run of a book's text, by place (found once per book, then a place
    only selects the mentions before it), and which books were scanned by which version of the finder."""
    _run(
        conn,
        """
        CREATE TABLE IF NOT EXISTS name_mentions (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            start INTEGER NOT NULL,
            name TEXT NOT NULL,
            at_start INTEGER NOT NULL,
            before TEXT NOT NULL,
            after TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS name_mentions_place ON name_mentions(book_id, ordinal);
        CREATE TABLE IF NOT EXISTS name_scans (
            book_id INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
            version INTEGER NOT NULL
        )
        """,
    )


def m012_chapter_summaries(conn: sqlite3.Connection) -> None:
    """The story so far by the AI: each whole chapter's summary, kept per model (a chapter's text never changes),
    with the places of the sentences it cites."""
    _run(
        conn,
        """
        CREATE TABLE IF NOT EXISTS chapter_summaries (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            section_idx INTEGER NOT NULL,
            model TEXT NOT NULL,
            text TEXT NOT NULL,
            cited TEXT NOT NULL,
            PRIMARY KEY (book_id, section_idx, model)
        )
        """,
    )


def m013_chinese_names(conn: sqlite3.Connection) -> None:
    """Chinese names for X-Ray: how common each mention's word is in general use (a tagger's dictionary count; 0
    for English runs and coined words), and how far a book has been scanned (NULL: all of it). Books are scanned
    up to the place asked for, since the Chinese tagger is slow on a whole novel."""
    _add_column(conn, "name_mentions", "common", "INTEGER NOT NULL DEFAULT 0")
    _add_column(conn, "name_scans", "through", "INTEGER")


def m014_dictionaries(conn: sqlite3.Connection) -> None:
    """Dictionaries the reader imported (their files kept in the library's folder) with every headword folded for
    lookup, and the words looked up, per book (the vocabulary list)."""
    _run(
        conn,
        """
        CREATE TABLE IF NOT EXISTS dictionaries (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            folder TEXT NOT NULL,
            types TEXT NOT NULL DEFAULT '',
            words INTEGER NOT NULL DEFAULT 0,
            added_at TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS dictionary_words (
            dictionary_id INTEGER NOT NULL REFERENCES dictionaries(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            word TEXT NOT NULL,
            offset INTEGER NOT NULL,
            size INTEGER NOT NULL,
            text TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX IF NOT EXISTS dictionary_words_key ON dictionary_words(key);
        CREATE TABLE IF NOT EXISTS vocabulary (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            word TEXT NOT NULL,
            locator TEXT NOT NULL,
            sentence TEXT NOT NULL,
            definition TEXT NOT NULL,
            added_at TEXT NOT NULL,
            UNIQUE (book_id, word)
        )
        """,
    )


def m015_reading_days(conn: sqlite3.Connection) -> None:
    """Reading statistics: each device's reading per book and day (local date): seconds, characters read on and
    sessions. A device writes only its own rows; sync brings the others' (so totals never count twice)."""
    _run(
        conn,
        """
        CREATE TABLE IF NOT EXISTS reading_days (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            device TEXT NOT NULL,
            day TEXT NOT NULL,
            seconds REAL NOT NULL DEFAULT 0,
            chars INTEGER NOT NULL DEFAULT 0,
            sessions INTEGER NOT NULL DEFAULT 0,
            last_at TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (book_id, device, day)
        )
        """,
    )


def m016_translations(conn: sqlite3.Connection) -> None:
    """Paragraphs translated by the AI, kept per paragraph, target language and model."""
    _run(
        conn,
        """
        CREATE TABLE IF NOT EXISTS translations (
            book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            language TEXT NOT NULL,
            model TEXT NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (book_id, ordinal, language, model)
        )
        """,
    )


def m017_catalogs(conn: sqlite3.Connection) -> None:
    """The OPDS catalogs the reader added (their passwords are in the secret store, never here), and the folders
    watched for new books with the files already offered from them."""
    _run(
        conn,
        """
        CREATE TABLE IF NOT EXISTS catalogs (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            url TEXT NOT NULL UNIQUE,
            username TEXT NOT NULL DEFAULT '',
            added_at TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS watched_folders (folder TEXT PRIMARY KEY, added_at TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS seen_files (path TEXT PRIMARY KEY, stamp TEXT NOT NULL)
        """,
    )


def m018_readwise(conn: sqlite3.Connection) -> None:
    """The highlights sent to Readwise, each with a digest of what was sent (an edited note is sent again)."""
    _run(
        conn,
        "CREATE TABLE IF NOT EXISTS readwise_sent (uid TEXT PRIMARY KEY, digest TEXT NOT NULL, sent_at TEXT NOT NULL)",
    )


def m019_shelf_keys(conn: sqlite3.Connection) -> None:
    """Each book's title and authors folded, so the library screen sorts, searches and pages its books in SQL."""
    _add_column(conn, "books", "title_key", "TEXT NOT NULL DEFAULT ''")
    _add_column(conn, "books", "authors_key", "TEXT NOT NULL DEFAULT ''")
    rows = conn.execute("SELECT id, title, authors FROM books").fetchall()
    conn.executemany(
        "UPDATE books SET title_key = ?, authors_key = ? WHERE id = ?",
        [(*shelf_keys(row[1], json.loads(row[2])), row[0]) for row in rows],
    )
    conn.execute("CREATE INDEX IF NOT EXISTS books_by_title ON books(title_key)")


def m020_chunk_terms(conn: sqlite3.Connection) -> None:
    """Each book's own keyword statistics: which of its passages hold each term, how often, and each passage's
    length in terms, so a search in one book is ranked by that book alone (FTS5's BM25 counts the whole library).
    Books chunked before get theirs the next time their passages are prepared; until then FTS5 ranks them."""
    _add_column(conn, "chunk_sets", "term_lengths", "BLOB")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS chunk_terms (book_id INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE, "
        "term TEXT NOT NULL, postings BLOB NOT NULL, PRIMARY KEY (book_id, term)) WITHOUT ROWID"
    )


def m021_books_read_in_part(conn: sqlite3.Connection) -> None:
    """Long PDFs stored from their first pages while the rest is read: how many pages of how many are in."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS books_read_in_part (book_id INTEGER PRIMARY KEY REFERENCES books(id) "
        "ON DELETE CASCADE, pages_read INTEGER NOT NULL, pages INTEGER NOT NULL)"
    )


def m022_chunk_windows(conn: sqlite3.Connection) -> None:
    """Each indexed passage's sentences as its words, so hybrid search's window re-rank reads them instead of
    finding them again (``core.rag.proximity.sentence_terms``); written when a book is indexed."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS chunk_windows (chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) "
        "ON DELETE CASCADE, terms TEXT NOT NULL)"
    )


def m023_paragraphs_to_index(conn: sqlite3.Connection) -> None:
    """Books whose paragraphs' keyword index is still to be written: an import that opens the book at once leaves
    it for the work behind the open book (``Library.index_paragraphs``); a search writes it first if it is due."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS paragraphs_to_index (book_id INTEGER PRIMARY KEY REFERENCES books(id) "
        "ON DELETE CASCADE)"
    )


def m024_vector_changes(conn: sqlite3.Connection) -> None:
    """A count of every change to the stored vectors, kept by triggers: the numpy search's cache of vectors is
    valid while it stands. (It keyed on SQLite's data_version, which since each thread reads through its own
    connection also moves with every other thread's commit, a page turn's saved place included.)"""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS vector_changes (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)"
    )
    conn.execute("INSERT OR IGNORE INTO vector_changes VALUES (1, 0)")
    for event, name in (("INSERT", "added"), ("DELETE", "removed"), ("UPDATE", "changed")):
        conn.execute(
            f"CREATE TRIGGER IF NOT EXISTS chunk_vectors_{name} AFTER {event} ON chunk_vectors "
            "BEGIN UPDATE vector_changes SET n = n + 1 WHERE id = 1; END"
        )


def m025_xray_corrections(conn: sqlite3.Connection) -> None:
    """The reader's corrections to X-Ray, one per name, keyed by the book's content hash (not its row), so they stay
    through a removal and a new import of the same book, as its sync records do."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS xray_corrections (content_hash TEXT NOT NULL, name_key TEXT NOT NULL, "
        "value TEXT NOT NULL, PRIMARY KEY (content_hash, name_key))"
    )


def m026_writing_mode(conn: sqlite3.Connection) -> None:
    """How a book is set: "vertical-rl" for vertical columns read right to left (a Japanese or Chinese EPUB that
    says so), "" otherwise (books imported before are horizontal until the reader switches them)."""
    _add_column(conn, "books", "writing_mode", "TEXT NOT NULL DEFAULT ''")


SYNC_SETTINGS = ("target", "user", "book_files", "max_book_mb")


def m027_settings_apart(conn: sqlite3.Connection) -> None:
    """Where this library syncs, KOReader sync's server and Readwise's address leave ``sync_meta`` (sync's own
    bookkeeping: the device, the clock, what was sent) for tables of their own, each kept by its domain's store."""
    conn.execute("CREATE TABLE IF NOT EXISTS sync_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS kosync_settings (id INTEGER PRIMARY KEY CHECK (id = 1), url TEXT NOT NULL, "
        "user TEXT NOT NULL)"
    )
    conn.execute(
        "CREATE TABLE IF NOT EXISTS readwise_settings (id INTEGER PRIMARY KEY CHECK (id = 1), url TEXT NOT NULL)"
    )
    marks = ",".join("?" * len(SYNC_SETTINGS))
    conn.execute(
        f"INSERT OR IGNORE INTO sync_settings SELECT name, value FROM sync_meta WHERE name IN ({marks})", SYNC_SETTINGS
    )
    conn.execute(
        "INSERT OR IGNORE INTO kosync_settings SELECT 1, value, COALESCE((SELECT value FROM sync_meta "
        "WHERE name = 'kosync_user'), '') FROM sync_meta WHERE name = 'kosync_url'"
    )
    conn.execute("INSERT OR IGNORE INTO readwise_settings SELECT 1, value FROM sync_meta WHERE name = 'readwise_url'")
    moved = (*SYNC_SETTINGS, "kosync_url", "kosync_user", "readwise_url")
    conn.execute(f"DELETE FROM sync_meta WHERE name IN ({','.join('?' * len(moved))})", moved)


def _add_column(conn: sqlite3.Connection, table: str, column: str, declaration: str) -> None:
    """Add a column unless the table has it (a migration may run again on a library rolled back to before it)."""
    if column not in {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}:
        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")


def _run(conn: sqlite3.Connection, script: str) -> None:
    """Run statements one by one, inside the caller's transaction (executescript would commit it)."""
    for statement in script.split(";\n"):
        if statement.strip():
            conn.execute(statement)


MIGRATIONS: list[tuple[int, str, Callable[[sqlite3.Connection], None]]] = [
    (1, "initial", m001_initial),
    (2, "retrieval", m002_retrieval),
    (3, "chat", m003_chat),
    (4, "stemmed chunk keywords", m004_stemmed_chunk_keywords),
    (5, "furthest place", m005_furthest_place),
    (6, "simplified search text", m006_simplified_search_text),
    (7, "sync", m007_sync),
    (8, "sync journal", m008_sync_journal),
    (9, "index-only full-text tables", m009_index_only_search),
    (10, "covers apart", m010_covers_apart),
    (11, "name mentions", m011_name_mentions),
    (12, "chapter summaries", m012_chapter_summaries),
    (13, "chinese names", m013_chinese_names),
    (14, "dictionaries", m014_dictionaries),
    (15, "reading days", m015_reading_days),
    (16, "translations", m016_translations),
    (17, "catalogs and folders", m017_catalogs),
    (18, "readwise", m018_readwise),
    (19, "shelf keys", m019_shelf_keys),
    (20, "chunk terms", m020_chunk_terms),
    (21, "books read in part", m021_books_read_in_part),
    (22, "chunk windows", m022_chunk_windows),
    (23, "paragraphs to index", m023_paragraphs_to_index),
    (24, "vector changes", m024_vector_changes),
    (25, "xray corrections", m025_xray_corrections),
    (26, "writing mode", m026_writing_mode),
    (27, "settings apart", m027_settings_apart),
]
# Migrations that free a large part of the file: the database is compacted (VACUUM) once after them.
COMPACT_AFTER = frozenset({9})
