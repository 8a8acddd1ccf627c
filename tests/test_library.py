"""The library store on real SQLite files: migrations, import, duplicates, removal, full-text search."""

from pathlib import Path

import pytest
from conftest import book_path

from core.books import Locator
from core.books.locator import parse_locator
from core.errors import BookNotFoundError, LocatorError
from core.library import Library
from core.library.db import DATABASE_ERRORS, connect, migrate, schema_version
from core.library.fts import index_text, match_expression, query_terms
from core.library.migrations import MIGRATIONS

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


def test_empty_database_migrates_to_the_latest_version(tmp_path: Path) -> None:
    conn = connect(tmp_path / "new.db")
    assert schema_version(conn) == MIGRATIONS[-1][0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table')")}
    assert {"books", "sections", "segments", "toc", "positions", "bookmarks", "highlights", "book_tags"} <= tables
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert migrate(conn) == MIGRATIONS[-1][0]  # running again changes nothing
    assert conn.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] == len(MIGRATIONS)


def test_import_copies_the_file_under_its_hash_and_stores_everything(library: Library) -> None:
    record, created = library.import_file(book_path("en/idpf-moby-dick.epub"))
    assert created and record.title == "Moby-Dick" and record.format == "epub"
    stored = library.file_path(record.id)
    assert stored.name == f"{record.content_hash}.epub"
    assert stored.read_bytes() == book_path("en/idpf-moby-dick.epub").read_bytes()
    count = library.conn.execute("SELECT COUNT(*) FROM segments WHERE book_id = ?", (record.id,)).fetchone()[0]
    assert count == record.segment_count > 2000
    ordinals = [
        r[0]
        for r in library.conn.execute(
            "SELECT ordinal FROM segments WHERE book_id = ? ORDER BY section_idx, idx", (record.id,)
        )
    ]
    assert ordinals == list(range(count))  # global ordinals follow reading order
    assert library.cover(record.id)[1].startswith("image/")
    toc = library.toc(record.id)
    chapter_one = next(row for row in toc if row.title.startswith("Chapter 1."))
    assert library.segment(record.id, chapter_one.locator).text.startswith("Chapter 1.")


def test_importing_the_same_file_twice_gives_the_same_book(library: Library, tmp_path: Path) -> None:
    source = book_path("en/epubjs-alice.epub")
    copy = tmp_path / "renamed copy.epub"
    copy.write_bytes(source.read_bytes())
    first, created_first = library.import_file(source)
    second, created_second = library.import_file(copy)
    assert created_first and not created_second
    assert first.id == second.id
    assert len(library.books()) == 1
    assert len(list(library.files.iterdir())) == 1


def test_remove_deletes_rows_annotations_and_file(library: Library) -> None:
    record, _ = library.import_file(book_path("en/epubjs-alice.epub"))
    library.conn.execute("INSERT INTO book_tags VALUES (?, 'fiction')", (record.id,))
    path = library.file_path(record.id)
    library.remove(record.id)
    assert not path.exists()
    for table in ("books", "sections", "segments", "toc", "book_tags", "segments_fts"):
        assert library.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table
    with pytest.raises(BookNotFoundError):
        library.get(record.id)


def test_a_failure_mid_import_leaves_nothing_behind(library: Library) -> None:
    # a real SQLite trigger makes the last insert of the import fail, after books/segments rows were written
    library.conn.execute("CREATE TRIGGER fail_toc BEFORE INSERT ON toc BEGIN SELECT RAISE(ABORT, 'disk trouble'); END")
    with pytest.raises(DATABASE_ERRORS, match="disk trouble"):
        library.import_file(book_path("en/epubjs-alice.epub"))
    for table in ("books", "sections", "segments", "segments_fts"):
        assert library.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table
    assert list(library.files.iterdir()) == []
    library.conn.execute("DROP TRIGGER fail_toc")
    record, created = library.import_file(book_path("en/epubjs-alice.epub"))
    assert created and library.file_path(record.id).exists()


def test_data_survives_reopening_the_database(tmp_path: Path) -> None:
    first = Library(tmp_path / "lib")
    record, _ = first.import_file(book_path("zh/luxun_nahan.txt"))
    first.close()
    second = Library(tmp_path / "lib")
    assert [b.id for b in second.books()] == [record.id]
    assert second.find(record.id, "孔乙己")
    second.close()


def test_resolve_by_id_hash_prefix_and_title(library: Library) -> None:
    alice, _ = library.import_file(book_path("en/epubjs-alice.epub"))
    moby, _ = library.import_file(book_path("en/idpf-moby-dick.epub"))
    assert library.resolve(str(moby.id)).id == moby.id
    assert library.resolve(alice.content_hash[:8]).id == alice.id
    assert library.resolve("moby").id == moby.id
    with pytest.raises(BookNotFoundError, match="no book in the library matches 'no such title'"):
        library.resolve("no such title")


@pytest.mark.parametrize("reference", ["", " ", "%", "_", "a%", "%%%%", "²", "١٢", "x" * 100_000, "'; --", "\\"])
def test_a_reference_that_names_no_book_exactly_picks_none(library: Library, reference: str) -> None:
    """Wildcards, non-ASCII digits, blanks and huge strings once picked (or removed!) a book, or crashed."""
    library.import_file(book_path("en/epubjs-alice.epub"))
    with pytest.raises(BookNotFoundError):
        library.resolve(reference)


def test_a_reference_that_fits_several_books_is_refused_with_a_list(library: Library) -> None:
    alice, _ = library.import_file(book_path("en/epubjs-alice.epub"))
    moby, _ = library.import_file(book_path("en/idpf-moby-dick.epub"))
    with pytest.raises(
        BookNotFoundError, match=rf"'d' matches 2 books: use the id .*{alice.id}: Alice.*{moby.id}: Moby"
    ):
        library.resolve("d")
    with pytest.raises(BookNotFoundError, match=r"name a book by its id or title \(1: Alice"):
        library.resolve("  ")
    assert library.resolve("MOBY-DICK").id == moby.id  # a whole title, in any case
    assert library.resolve(moby.content_hash[:4]).id == moby.id  # four hex digits are enough when unique


def test_bad_locators_are_clear_errors(library: Library) -> None:
    record, _ = library.import_file(book_path("en/epubjs-alice.epub"))
    with pytest.raises(LocatorError, match="outside this book"):
        library.segment(record.id, Locator(999, 0))
    with pytest.raises(LocatorError, match="characters"):
        library.segment(record.id, Locator(3, 2, 100_000))


# -- full-text search ------------------------------------------------------------------------


def test_cjk_text_is_indexed_as_bigrams_and_queries_match_it() -> None:
    assert index_text("贾宝玉说hello").split() == ["贾宝", "宝玉", "玉说", "说", "hello"]
    assert match_expression("宝玉") == '"宝玉"'
    assert match_expression("林黛玉") == '"林黛 黛玉"'
    assert match_expression("玉") == '"玉"*'
    assert match_expression("white whale") == '"white" AND "whale"'
    assert match_expression("  ,,, ") is None
    assert query_terms('Ahab "said" 船长') == ["ahab", "said", "船长"]


def test_chinese_two_character_search_finds_and_locates_the_word(library: Library) -> None:
    record, _ = library.import_file(book_path("zh/hongloumeng_120.md"))
    hits = library.find(record.id, "黛玉", limit=10)
    assert len(hits) == 10
    for hit in hits:
        segment = library.segment(record.id, hit.locator)
        assert segment.text[hit.locator.offset : hit.locator.offset + 2] == "黛玉"
        assert "**黛玉**" in hit.snippet
    assert hits == sorted(hits, key=lambda h: -h.score)
    assert library.find(record.id, "通灵宝玉")  # a four-character phrase
    assert not library.find(record.id, "黛宝")  # characters present, but never adjacent in that order


def test_single_character_chinese_search(library: Library) -> None:
    record, _ = library.import_file(book_path("zh/luxun_nahan.txt"))
    hits = library.find(record.id, "药", limit=5)
    assert hits and all("药" in library.segment(record.id, h.locator).text for h in hits)


def test_english_search_uses_words_not_substrings(library: Library) -> None:
    record, _ = library.import_file(book_path("en/idpf-moby-dick.epub"))
    hits = library.find(record.id, "Ishmael", limit=50)
    assert hits and all("ishmael" in library.segment(record.id, h.locator).text.lower() for h in hits)
    assert not library.find(record.id, "shmae")  # no match inside words
    call_me = library.find(record.id, "call me ishmael")
    assert any(library.segment(record.id, h.locator).text.startswith("Call me Ishmael") for h in call_me)


def test_search_is_scoped_to_the_book_or_the_library(library: Library) -> None:
    alice, _ = library.import_file(book_path("en/epubjs-alice.epub"))
    moby, _ = library.import_file(book_path("en/idpf-moby-dick.epub"))
    assert {h.book_id for h in library.find(alice.id, "sea", 200)} == {alice.id}
    assert {h.book_id for h in library.find(moby.id, "sea", 200)} == {moby.id}
    assert {h.book_id for h in library.find(None, "sea", 500)} == {alice.id, moby.id}


def test_full_width_letters_and_case_fold_in_search(library: Library) -> None:
    record, _ = library.import_file(book_path("zh/luxun_nahan.txt"))
    hits = library.find(record.id, "阿q", limit=5)  # the book writes 阿Ｑ with a full-width Ｑ
    assert hits
    text = library.segment(record.id, hits[0].locator).text
    assert "阿Ｑ" in text and "**阿**" in hits[0].snippet and "**Ｑ**" in hits[0].snippet


def test_illustrations_are_read_from_the_stored_epub(tmp_path: Path) -> None:
    library = Library(tmp_path / "lib")
    alice, _ = library.import_file(book_path("en/epubjs-alice.epub"))
    nahan, _ = library.import_file(book_path("zh/luxun_nahan.txt"))
    first = library.segments(alice.id, 0, 1)[0]
    assert first.kind == "image" and first.src == "OPS/images/cover_th.jpg"
    picture = library.image(alice.id, first.src)
    assert picture is not None and picture[:3] == b"\xff\xd8\xff"  # a JPEG
    assert library.image(alice.id, "OPS/images/not-there.jpg") is None
    assert library.image(alice.id, "../../etc/passwd") is None
    assert library.image(nahan.id, "anything.png") is None


def test_a_library_from_before_stemmed_keywords_is_upgraded_in_place(tmp_path: Path) -> None:
    """Migrations are append-only: m002 shipped an unstemmed chunk index; m004 rebuilds it with stemming."""
    from dbkit import inside

    from core.services import Quire

    quire = Quire(tmp_path)
    quire.import_paths([book_path("en/epubjs-alice.epub")])
    conn = inside(quire).library.conn
    with inside(quire).library.transaction():  # what the code before migration 4 left on disk
        conn.execute("DROP TABLE chunks_fts")
        conn.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5(body, book_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2')")  # fmt: skip
        rows = conn.execute("SELECT id, book_id, text FROM chunks").fetchall()
        conn.executemany("INSERT INTO chunks_fts (rowid, body, book_id) VALUES (?,?,?)", [(r[0], index_text(r[2]), r[1]) for r in rows])  # fmt: skip
        conn.execute("DELETE FROM schema_migrations WHERE version >= 4")
        for column in ("furthest_locator", "furthest_ordinal", "furthest_percent"):  # nor had migration 5 run
            conn.execute(f"ALTER TABLE positions DROP COLUMN {column}")
        _before_sync(conn)  # nor migration 7
        conn.execute("DELETE FROM chunk_terms")  # nor migration 20: no statistics of its own (its table stays,
        conn.execute("UPDATE chunk_sets SET term_lengths = NULL")  # for this process's code, as if empty)
    assert not quire.search(1, "rabbits", mode="keyword")  # unstemmed: "rabbits" is not "rabbit"
    quire.close()

    upgraded = Quire(tmp_path)  # opening it runs migration 4
    conn = inside(upgraded).library.conn
    assert conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == MIGRATIONS[-1][0]
    assert "porter" in conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").fetchone()[0]
    assert conn.execute("SELECT COUNT(*) FROM chunks_fts").fetchone()[0] == len(rows)
    found = upgraded.search(1, "rabbits", mode="keyword")
    assert found and "rabbit" in found[0].text.lower()
    upgraded.sync.setup(str(tmp_path))  # migration 7: the library can sync (its own folder as the target here)
    assert upgraded.sync.run().sent >= 2
    upgraded.close()


def _before_covers_apart(conn, *, keep_table: bool = True) -> None:
    """Undo migration 10: each book's cover in its own row again. The covers' table stays (empty without
    ``keep_table``) so that this process's code, which reads it, still works until the library is reopened."""
    conn.execute("ALTER TABLE books ADD COLUMN cover BLOB")
    conn.execute("ALTER TABLE books ADD COLUMN cover_media_type TEXT NOT NULL DEFAULT ''")
    conn.execute(
        "UPDATE books SET cover = (SELECT picture FROM book_covers WHERE book_id = id), "
        "cover_media_type = COALESCE((SELECT media_type FROM book_covers WHERE book_id = id), '')"
    )
    if not keep_table:
        conn.execute("DELETE FROM book_covers")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 10")


def _before_index_only(conn) -> None:
    """Undo migrations 9 and 10: full-text tables that keep a copy of the text and the book's id beside the index."""
    if "cover" not in {r[1] for r in conn.execute("PRAGMA table_info(books)")}:
        _before_covers_apart(conn)
    for table, source, porter in (("segments_fts", "segments", ""), ("chunks_fts", "chunks", "porter ")):
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
        if "contentless_delete" not in sql:
            continue  # already made as an older migration left it
        conn.execute(f"DROP TABLE {table}")
        conn.execute(f"CREATE VIRTUAL TABLE {table} USING fts5(body, book_id UNINDEXED, tokenize = '{porter}unicode61 remove_diacritics 2')")  # fmt: skip
        rows = conn.execute(f"SELECT id, book_id, text FROM {source}").fetchall()
        conn.executemany(f"INSERT INTO {table} (rowid, body, book_id) VALUES (?,?,?)", [(r[0], index_text(r[2]), r[1]) for r in rows])  # fmt: skip
    conn.execute("DELETE FROM schema_migrations WHERE version >= 9")


def _before_journal(conn) -> None:
    """Undo migrations 8 and 9 (the sync journal, sent files, identities of highlights and bookmarks)."""
    _before_index_only(conn)
    for table in ("sync_pending", "sync_sent"):
        conn.execute(f"DROP TABLE {table}")
    for table in ("highlights", "bookmarks"):
        conn.execute(f"DROP INDEX {table}_uid")
        conn.execute(f"ALTER TABLE {table} DROP COLUMN uid")
    conn.execute("DELETE FROM schema_migrations WHERE version >= 8")


def test_sync_kosync_and_readwise_settings_move_to_tables_of_their_own(tmp_path: Path) -> None:
    """Issue 59 item 2: ``sync_meta`` held sync's bookkeeping and three domains' settings at once. A library from
    before keeps each setting, now in its domain's table, and sync_meta keeps the bookkeeping alone."""
    from core.koreader import store as kosync_store
    from core.readwise import store as readwise_store
    from core.sync import settings_store, store as sync_store

    conn = connect(tmp_path / "library.db")  # autocommit: each statement its own transaction, on either driver
    migrate(conn)
    device = sync_store.device_id(conn)
    conn.execute("DELETE FROM schema_migrations WHERE version >= 27")
    for table in ("sync_settings", "kosync_settings", "readwise_settings"):
        conn.execute(f"DROP TABLE {table}")
    conn.executemany(  # the rows as Quire before kept them
        "INSERT INTO sync_meta VALUES (?, ?)",
        [("target", "/media/sync"), ("user", "ana"), ("book_files", "1"), ("max_book_mb", "50"),
         ("kosync_url", "https://sync.koreader.rocks"), ("kosync_user", "ana"), ("readwise_url", "https://readwise.io")],
    )  # fmt: skip
    migrate(conn)
    assert settings_store.settings(conn) == {"target": "/media/sync", "user": "ana", "book_files": "1",
                                             "max_book_mb": "50"}  # fmt: skip
    assert settings_store.is_set_up(conn)
    assert kosync_store.settings(conn) == {"url": "https://sync.koreader.rocks", "user": "ana"}
    assert readwise_store.url(conn) == "https://readwise.io"
    assert dict(conn.execute("SELECT name, value FROM sync_meta").fetchall()) == {"device": device}
    kosync_store.forget(conn)  # turned off, each alone
    readwise_store.forget_url(conn)
    assert kosync_store.settings(conn) is None and readwise_store.url(conn) is None
    assert settings_store.is_set_up(conn) and sync_store.device_id(conn) == device
    conn.close()


def _before_sync(conn) -> None:
    """Undo migrations 7 and 8 (sync's tables, the books' edited_at), as a library saved before it has them."""
    _before_journal(conn)
    for table in ("sync_state", "sync_seen", "sync_outbox", "sync_meta"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("ALTER TABLE books DROP COLUMN edited_at")


def test_notes_from_before_identities_get_the_same_identity_on_every_device_and_are_not_doubled(
    tmp_path: Path,
) -> None:
    """Two devices that synced a highlight and a bookmark before identities existed upgrade apart (each derives
    the identity from the span); their next syncs show one of each, not two."""
    from dbkit import inside

    from core.services import Quire

    shared = tmp_path / "shared"
    shared.mkdir()
    devices = []
    for name in ("a", "b"):
        quire = Quire(tmp_path / name)
        quire.import_paths([book_path("en/epubjs-alice.epub")])
        quire.notes.add_highlight(1, "3.2:0", "3.2:10", "green", "same note")
        quire.notes.add_bookmark(1, "4.3", label="same mark")
        with inside(quire).library.transaction() as conn:
            _before_journal(conn)
            conn.execute("DELETE FROM sync_meta")  # never synced before either
        quire.close()
        devices.append(tmp_path / name)
    upgraded = [Quire(folder) for folder in devices]
    uids = [(q.notes.highlights(1)[0].uid, q.notes.bookmarks(1)[0].uid) for q in upgraded]
    assert uids[0] == uids[1] and all(uids[0])
    for quire in upgraded:
        quire.sync.setup(str(shared))
    for quire in (*upgraded, *upgraded):
        quire.sync.run()
    for quire in upgraded:
        assert [h.note for h in quire.notes.highlights(1)] == ["same note"]
        assert [m.label for m in quire.notes.bookmarks(1)] == ["same mark"]
        quire.close()


def test_the_error_tree_is_one_tree() -> None:
    from core import errors
    from core.agent.citations import CitationError
    from core.network_policy import LocalOnlyError

    kinds = [v for v in vars(errors).values() if isinstance(v, type) and issubclass(v, Exception)]
    assert all(issubclass(kind, errors.QuireError) for kind in kinds)
    assert CitationError is errors.CitationError and LocalOnlyError is errors.LocalOnlyError
    assert issubclass(errors.StreamCut, errors.ProviderError)
    assert not issubclass(errors.ProviderError, errors.EmbeddingError)  # a chat failure is not an embedding one
    assert issubclass(errors.EmbeddingProviderError, errors.ProviderError)
    assert issubclass(errors.EmbeddingProviderError, errors.EmbeddingError)
    assert all(kind.__name__ in errors.__doc__ for kind in kinds)  # the drawing names every one


def test_a_library_from_before_the_furthest_place_keeps_its_positions(tmp_path: Path) -> None:
    """Migration 5 adds the furthest place; a library saved by the code before it starts with furthest = current."""
    from dbkit import inside

    from core.services import Quire

    quire = Quire(tmp_path)
    quire.import_paths([book_path("en/epubjs-alice.epub")])
    conn = inside(quire).library.conn
    with inside(quire).library.transaction():  # what the code before migration 5 left on disk
        conn.execute("DELETE FROM schema_migrations WHERE version >= 5")
        _before_sync(conn)
        for column in ("furthest_locator", "furthest_ordinal", "furthest_percent"):
            conn.execute(f"ALTER TABLE positions DROP COLUMN {column}")
        ordinal = inside(quire).library.ordinal_of(1, parse_locator("7.3"))
        conn.execute(
            "INSERT INTO positions (book_id, locator, ordinal, percent, reading_seconds, updated_at) "
            "VALUES (1, '7.3', ?, 40.0, 120, '2026-01-01T00:00:00')",
            (ordinal,),
        )
    quire.close()
    upgraded = Quire(tmp_path)
    position = upgraded.position(1)
    assert (str(position.locator), str(position.furthest), position.furthest_percent) == ("7.3", "7.3", 40.0)
    assert position.reading_seconds == 120
    assert str(upgraded.save_position(1, "2.0", reading=False).furthest) == "7.3"  # and it holds from now on
    upgraded.close()


def test_simplified_and_traditional_chinese_find_each_other(tmp_path: Path) -> None:
    """黛玉 finds 黛玉 in a traditional edition and 賈寶玉 finds 贾宝玉: in-book search, keyword passages, snippets."""
    from core.services import Quire

    quire = Quire(tmp_path)
    traditional = "第一回 甄士隱夢幻識通靈\n\n　　賈寶玉見了林黛玉，說道：「這個妹妹我曾見過的。」\n"
    simplified = "第一回 甄士隐梦幻识通灵\n\n　　贾宝玉见了林黛玉，说道：“这个妹妹我曾见过的。”\n"
    t_id = quire.import_bytes(traditional.encode("utf-8"), "fanti.txt").book.id
    s_id = quire.import_bytes(simplified.encode("utf-8"), "jianti.txt").book.id
    hit = quire.find(t_id, "贾宝玉")[0]  # a simplified query in a traditional book
    assert "**賈寶玉**" in hit.snippet and hit.locator.offset == traditional.split("\n")[2].index("賈") - 2
    assert quire.find(s_id, "賈寶玉 說道")  # and the other way round
    assert quire.search(t_id, "这个妹妹", mode="keyword")  # the passages the chat and offline answers read
    quire.close()


def test_a_library_indexed_before_simplified_folding_is_reindexed(tmp_path: Path) -> None:
    from dbkit import inside

    from core.services import Quire

    quire = Quire(tmp_path)
    book = quire.import_bytes("　　賈寶玉見了林黛玉。\n".encode(), "fanti.txt").book
    library = inside(quire).library
    with library.transaction() as conn:  # the index as the code before migration 6 wrote it: traditional bigrams
        _before_index_only(conn)
        for table, source in (("segments_fts", "segments"), ("chunks_fts", "chunks")):
            rows = conn.execute(f"SELECT id, book_id, text FROM {source}").fetchall()
            conn.executemany(f"DELETE FROM {table} WHERE rowid = ?", [(r[0],) for r in rows])
            conn.executemany(
                f"INSERT INTO {table} (rowid, body, book_id) VALUES (?,?,?)",
                [(r[0], " ".join(r[2][i : i + 2] for i in range(len(r[2]) - 1)), r[1]) for r in rows],
            )
        conn.execute("DELETE FROM schema_migrations WHERE version >= 6")
        _before_sync(conn)
    assert not quire.find(book.id, "贾宝玉")
    quire.close()
    upgraded = Quire(tmp_path)
    assert upgraded.find(book.id, "贾宝玉") and upgraded.search(book.id, "贾宝玉", mode="keyword")
    upgraded.close()


def test_a_library_from_before_index_only_search_keeps_finding_and_stops_keeping_a_second_copy(
    tmp_path: Path,
) -> None:
    """Migration 9: the full-text tables become an index alone; what was found is found, and removal still works."""
    from dbkit import inside

    from core.services import Quire

    quire = Quire(tmp_path)
    alice = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    nahan = quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book
    library = inside(quire).library
    with library.transaction() as conn:
        _before_index_only(conn)
    found = [(h.book_id, str(h.locator)) for h in quire.find(None, "Rabbit")]
    chunks = [p.chunk_id for p in quire.search(alice.id, "a White Rabbit with pink eyes", mode="keyword", k=5)]
    chinese = [str(h.locator) for h in quire.find(nahan.id, "狂人")]
    copies = {r[0] for r in library.conn.execute("SELECT name FROM sqlite_master WHERE name LIKE '%fts_content'")}
    assert copies == {"segments_fts_content", "chunks_fts_content"} and found and chunks and chinese
    pages = library.conn.execute("PRAGMA page_count").fetchone()[0]
    quire.close()

    upgraded = Quire(tmp_path)
    conn = inside(upgraded).library.conn
    assert not conn.execute("SELECT name FROM sqlite_master WHERE name LIKE '%fts_content'").fetchall()
    assert conn.execute("PRAGMA page_count").fetchone()[0] < 0.8 * pages  # compacted: the copies' pages went back
    assert [(h.book_id, str(h.locator)) for h in upgraded.find(None, "Rabbit")] == found
    assert [
        p.chunk_id for p in upgraded.search(alice.id, "a White Rabbit with pink eyes", mode="keyword", k=5)
    ] == chunks
    assert [str(h.locator) for h in upgraded.find(nahan.id, "狂人")] == chinese
    upgraded.remove(alice.id)  # deletes from the index-only tables by row id
    assert not upgraded.find(None, "Rabbit") and upgraded.find(nahan.id, "狂人")
    for table in ("segments_fts", "chunks_fts"):
        left = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        source = table.removesuffix("_fts")
        assert left == conn.execute(f"SELECT COUNT(*) FROM {source}").fetchone()[0] > 0
    upgraded.close()


def test_covers_move_to_their_own_table_and_still_show(tmp_path: Path) -> None:
    """Migration 10: a library whose covers sat in the books' rows keeps them, read from book_covers; the library's
    rows no longer carry them (each refresh of the library screen read every picture)."""
    from dbkit import inside

    from core.services import Quire

    quire = Quire(tmp_path)
    alice = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    nahan = quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book  # no cover
    picture = quire.cover(alice.id)
    with inside(quire).library.transaction() as conn:
        _before_covers_apart(conn, keep_table=False)  # the pictures only in the books' rows, as before
    assert "cover" in {r[1] for r in inside(quire).library.conn.execute("PRAGMA table_info(books)")}
    quire.close()
    upgraded = Quire(tmp_path)
    conn = inside(upgraded).library.conn
    assert "cover" not in {r[1] for r in conn.execute("PRAGMA table_info(books)")}
    assert picture is not None and upgraded.cover(alice.id) == picture and upgraded.cover(nahan.id) is None
    shelf = {b.id: b.has_cover for b in upgraded.books()}
    assert shelf == {alice.id: True, nahan.id: False}
    upgraded.remove(alice.id)
    assert conn.execute("SELECT COUNT(*) FROM book_covers").fetchone()[0] == 0  # gone with its book
    upgraded.close()


def test_a_title_of_digits_opens_its_book_when_no_book_has_that_id(library: Library, tmp_path: Path) -> None:
    """Issue 36: digits always meant an id, so a book titled "1984" could not be named by its title."""
    alice, _ = library.import_file(book_path("en/epubjs-alice.epub"))
    orwell = tmp_path / "1984.txt"
    orwell.write_text("It was a bright cold day in April, and the clocks were striking thirteen.\n", encoding="utf-8")
    nineteen, _ = library.import_file(orwell)
    assert nineteen.title == "1984" and nineteen.id != 1984
    assert library.resolve("1984").id == nineteen.id  # no book has the id 1984: the title
    assert library.resolve(str(alice.id)).id == alice.id and library.resolve(alice.id).id == alice.id  # an id first
    with pytest.raises(BookNotFoundError, match="no book in the library matches '77'"):
        library.resolve("77")


def test_an_import_that_leaves_its_passages_for_later_opens_now_and_searches_after(tmp_path: Path) -> None:
    """Issue 40: cutting 红楼梦 into passages was more than half of its import; the app leaves it for after the
    book opens. Reading needs none; whatever reads passages first makes them, a library closed before they were
    made included, and ``prepare`` makes them once."""
    from dbkit import inside

    from core.services import Quire

    quire = Quire(tmp_path)
    data = book_path("zh/hongloumeng_120.md").read_bytes()
    book = quire.import_bytes(data, "hongloumeng_120.md", passages=False).book
    assert book is not None and inside(quire).chunks.profile(book.id) is None
    assert quire.text.segments(book.id, 0, 40)  # the first page reads at once
    assert quire.search(book.id, "宝玉", mode="keyword")  # the passages made by the first search that needs them
    assert quire.find(book.id, "宝玉")  # and the paragraphs' index by the first search of the paragraphs
    assert inside(quire).chunks.profile(book.id) is not None and quire.text.prepare(book.id) is False
    alice = quire.import_bytes(book_path("en/epubjs-alice.epub").read_bytes(), "alice.epub", passages=False).book
    assert alice is not None
    quire.close()  # closed before its passages were made: the next session makes them when asked
    again = Quire(tmp_path)
    assert inside(again).chunks.profile(alice.id) is None
    assert again.text.prepare(alice.id) is True and again.text.prepare(alice.id) is False
    assert again.search(alice.id, "rabbit", mode="keyword")
    again.close()


def _paragraph_index(quire, book_id: int) -> list[tuple[int, str]]:
    """What the paragraphs' keyword index holds for a book: (row id, each of its terms), read from FTS5's own
    vocabulary of the index (the table keeps no copy of the text)."""
    from dbkit import inside

    conn = inside(quire).library.conn
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.paragraph_terms USING fts5vocab(main, segments_fts, instance)"
    )
    return sorted(
        (row[0], row[1])
        for row in conn.execute(
            "SELECT doc, term FROM temp.paragraph_terms WHERE doc IN (SELECT id FROM segments WHERE book_id = ?)",
            (book_id,),
        )
    )


def _found(quire, book_id: int, query: str) -> list[tuple[object, str]]:
    """Every paragraph of the book a search finds, in reading order, with its snippet (the ranking's scores count
    the whole library's statistics, so they are left out)."""
    return [(hit.locator, hit.snippet) for hit in quire.find(book_id, query, None, in_book_order=True)]


def test_a_book_opened_at_once_gets_the_same_paragraph_index_behind_it_or_at_its_first_search(tmp_path: Path) -> None:
    """Issue 40: the paragraphs' keyword index was most of 红楼梦's time to first page (1.09 s -> 0.36 s without
    it). Opened at once, the book's index is due: the work behind the open book writes it, and so does a search
    that comes first (of the book or of the library), a library closed before either included. Whichever writes
    it, it holds exactly what an import that wrote it at once holds (a second writer adds nothing, and rows written
    before it are replaced, not added to: FTS5 keeps both texts' words for a row written twice)."""
    from dbkit import inside

    from core.library import paragraph_index
    from core.services import Quire

    data = book_path("zh/hongloumeng_120.md").read_bytes()
    alice = book_path("en/epubjs-alice.epub").read_bytes()
    at_once = Quire(tmp_path / "at-once")
    at_once.import_bytes(data, "hongloumeng_120.md")
    at_once.import_bytes(alice, "alice.epub")
    wanted = {1: _paragraph_index(at_once, 1), 2: _paragraph_index(at_once, 2)}
    found = {1: _found(at_once, 1, "宝玉 黛玉"), 2: _found(at_once, 2, "rabbit")}
    assert wanted[1] and wanted[2] and found[1] and found[2]
    at_once.close()

    behind = Quire(tmp_path / "behind")
    book = behind.import_bytes(data, "hongloumeng_120.md", passages=False).book
    assert book is not None and _paragraph_index(behind, book.id) == []  # opened before its index is written
    behind.close()  # closed before the work behind it ran: it is still due in the next session
    behind = Quire(tmp_path / "behind")
    assert behind.text.prepare(book.id) is True
    assert _paragraph_index(behind, book.id) == wanted[1]
    assert paragraph_index.write_due(inside(behind).library) == 0  # nothing due: a second writer adds nothing
    assert _found(behind, book.id, "宝玉 黛玉") == found[1]

    second = behind.import_bytes(alice, "alice.epub", passages=False).book
    assert second is not None and _paragraph_index(behind, second.id) == []
    assert behind.find(None, "rabbit", 50)  # a search of the whole library writes every index due first
    assert _paragraph_index(behind, second.id) == wanted[2] and _found(behind, second.id, "rabbit") == found[2]

    library = inside(behind).library  # due again after something else wrote its rows (a rebuild of the index may)
    with library.transaction() as conn:
        first = conn.execute("SELECT min(id) FROM segments WHERE book_id = ?", (second.id,)).fetchone()[0]
        conn.execute("INSERT INTO segments_fts (rowid, body) VALUES (?, 'stale')", (first,))
        conn.execute("INSERT INTO paragraphs_to_index VALUES (?)", (second.id,))
    assert paragraph_index.write_due(library, second.id) == 1
    assert _paragraph_index(behind, second.id) == wanted[2] and not behind.find(second.id, "stale")
    behind.remove(second.id)  # a book removed while its index is due leaves nothing due behind it
    assert library.conn.execute("SELECT count(*) FROM paragraphs_to_index").fetchone()[0] == 0
    behind.close()


def test_a_book_opened_once_reads_by_its_id_and_is_gone_when_another_window_removes_it(tmp_path: Path) -> None:
    """Issue 36: the reader named its book on every call (56 facade methods took ``reference: str | int`` and built
    the book's whole record each time, 47 µs). ``quire.open`` names it once, by title, hash or id ("1984" by its
    title); from then on each call is by its ``BookId``, the same as the facade's, and the book's removal still
    reads as BookNotFoundError, not as an empty page or a foreign-key error."""
    from dbkit import inside

    from core import BookId, OpenBook
    from core.services import Quire

    quire = Quire(tmp_path / "quire")
    try:
        orwell = tmp_path / "1984.txt"
        orwell.write_text(
            "It was a bright cold day in April.\n\nThe clocks were striking thirteen.\n", encoding="utf-8"
        )
        [alice, nineteen] = [r.book for r in quire.import_paths([book_path("en/epubjs-alice.epub"), orwell])]
        opened = quire.open("1984")
        assert isinstance(opened, OpenBook) and opened.id == BookId(nineteen.id) and opened.record.title == "1984"
        book = quire.open(alice.content_hash[:8])
        assert book.id == alice.id and book.toc() == quire.text.toc(alice.id)
        assert book.segments(20, 3) == quire.text.segments(alice.id, 20, 3)
        with pytest.raises(TypeError, match=r"quire\.book"):  # issue 59: a part takes the id; text is named once
            quire.text.segments("Alice's Adventures in Wonderland", 20, 3)
        place = book.segments(40, 1)[0]
        assert book.show(place.locator) == [place] and book.ordinal_of(str(place.locator)) == 40
        assert book.position() is None and book.printed_pages() == 0 and book.page_start(0) is None
        book.save_position(place.locator, read_seconds=30)
        assert book.position() == quire.position(alice.id) and book.position().furthest_ordinal == 40
        book.set_furthest(book.segments(10, 1)[0].locator)
        assert quire.position(alice.id).furthest_ordinal == 10
        assert book.xray() == quire.companion.xray(alice.id) and book.xray_needs_scan() is False
        library = inside(quire).library
        records = []
        real_get = library.get
        library.get = lambda book_id: records.append(book_id) or real_get(book_id)
        book.segments(20, 3), book.save_position(place.locator), book.minutes_left(40), book.position()
        assert records == []  # no record built: an index row checked
        del library.get
        quire.remove(alice.id)  # another window
        for call in (lambda: book.segments(20, 3), book.position, lambda: book.save_position(place.locator)):
            with pytest.raises(BookNotFoundError, match=f"no book with id {alice.id}"):
                call()
        with pytest.raises(BookNotFoundError):
            quire.open(alice.id)
    finally:
        quire.close()
