"""Bad command lines: each gives one line on stderr and a non-zero exit, never a traceback or exit 0."""

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import book_path
from dbkit import inside

from app.cli import main
from core.services import Quire

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)

BAD = [
    ("toc", "99999999999999999999999"),
    ("show", "1", "1.0", "-n", "99999999999999999999"),
    ("show", "1", "1.0", "-n", "0"),
    ("export", "1", "-o", "/proc/nope/x.md"),
    ("export", "1", "-o", "{tmp}"),
    ("ask", "1", "who?", "--thread", "99999"),
    ("ask", "1", "who?", "--thread", "{other_thread}"),
    ("ask", "1", "who?", "--provider", "openai", "--model", "x", "--base-url", "::::"),
    ("index", "1", "--embedder", "openai:m", "--base-url", "ftp://x"),
    ("search", "1", "rabbit", "--k", "-5"),
    ("search", "1", "rabbit", "--k", "0"),
    ("search", "1", "  "),
    ("ask", "1", ""),
    ("find", "1", ""),
    ("show", "1", "abc"),
    ("bogus",),
    ("opds", "add", "http://[::1"),  # issue 37: each of these gave a traceback or exited 0 saying nothing
    ("opds", "remove", "abc"),
    ("opds", "browse", "http://127.0.0.1:99999/"),
    ("kosync", "setup", "http://[::1", "--user", "me"),
    ("speak", "1", "-o", "/nonexistent/dir/x.wav"),
    ("kosync", "off", "extra"),
    ("new", "unwatch", "/nonexistent"),
    ("kosync", "setup", "http://127.0.0.1:9", "--user", "me"),  # issue 39: a password prompt with no terminal
    ("opds", "add", "http://127.0.0.1:9/opds", "--user", "me"),
    ("sync", "setup", "https://dav.example.com/quire/", "--user", "me"),
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from core.agent.threads_store import ChatStore

    root = tmp_path_factory.mktemp("cli") / "lib"
    quire = Quire(root)
    quire.import_paths([book_path("en/epubjs-alice.epub"), book_path("zh/luxun_nahan.txt")])
    ChatStore(inside(quire).library).new_thread(2, "about the other book")
    quire.close()
    return root


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a) for a in BAD])
def test_bad_input_is_one_line_and_a_failure(argv, library: Path, tmp_path: Path, capsys) -> None:
    args = [a.format(tmp=tmp_path, other_thread=1) for a in argv]
    try:
        code = main([*args, "--library", str(library)])
    except SystemExit as exit_:  # argparse's refusals
        code = exit_.code
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert code not in (0, None), (args, captured)
    assert len(lines) == 1 and lines[0].startswith("quire: error: "), captured.err
    assert "Traceback" not in captured.err and "usage:" not in captured.err


def test_a_library_from_a_newer_quire_is_refused_unchanged(tmp_path: Path, capsys) -> None:
    root = tmp_path / "lib"
    Quire(root).close()
    with sqlite3.connect(root / "library.db") as db:
        db.execute("INSERT INTO schema_migrations VALUES (999, 'from the future', '2030-01-01')")

    def state() -> list:
        with sqlite3.connect(root / "library.db") as db:
            return db.execute("SELECT * FROM sqlite_master UNION ALL SELECT *, 0, 0 FROM schema_migrations").fetchall()

    before = state()
    assert main(["list", "--library", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "newer version of Quire" in err
    assert state() == before  # no migration ran, no table changed


def test_the_cli_obeys_local_only_from_the_settings(tmp_path: Path, capsys) -> None:
    root = tmp_path / "lib"
    Quire(root).import_paths([book_path("en/epubjs-alice.epub")])
    (root / "settings.json").write_text(json.dumps({"local_only": True}), encoding="utf-8")
    code = main(["ask", "1", "who?", "--spoilers", "--provider", "openai", "--model", "gpt-4o-mini",
                 "--library", str(root)])  # fmt: skip
    assert code == 1 and "local-only mode is on" in capsys.readouterr().err
    code = main(["index", "1", "--embedder", "openai:text-embedding-3-small", "--base-url",
                 "https://api.openai.com/v1", "--library", str(root)])  # fmt: skip
    assert code == 1 and "local-only mode is on" in capsys.readouterr().err


def test_abandoned_import_files_are_cleaned_at_start(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    Quire(root).close()
    dead = root / "books" / f".{'ab' * 32}.999999999.part"  # a process id no system has
    dead.write_bytes(b"half a book")
    Quire(root).close()
    assert not dead.exists()


def test_a_book_indexed_remotely_is_still_searched_by_keywords_in_a_new_process(tmp_path: Path) -> None:
    from httpkit import LocalServer, Reply

    def embeddings(request):
        texts = request.json()["input"]
        return Reply(200, {"data": [{"index": i, "embedding": [1.0, float(i % 7), 0.5]} for i in range(len(texts))]})

    root = tmp_path / "lib"
    quire = Quire(root)
    quire.import_paths([book_path("en/epubjs-alice.epub")])
    with LocalServer(embeddings) as server:
        name = quire.models.use_remote("openai:tiny", server.url + "/v1")
        quire.index(1, embedder=name)
    quire.close()
    later = Quire(root)  # another process: the remote embedder is not registered here
    passages = later.search(1, "White Rabbit pink eyes", k=3)
    assert passages and "Rabbit" in passages[0].text
    with pytest.raises(Exception, match="remote model 'openai:tiny'"):
        later.search(1, "White Rabbit", mode="vector")
    later.close()


def test_kosync_with_koreader_sync_off_writes_nothing(tmp_path: Path, capsys) -> None:
    """Issue 37: 'quire kosync' refused, yet wrote a device id into the library."""
    root = tmp_path / "lib"
    Quire(root).close()
    before = sqlite3.connect(root / "library.db").execute("SELECT COUNT(*) FROM sync_meta").fetchone()
    assert main(["--library", str(root), "kosync"]) == 1
    assert "KOReader sync is off" in capsys.readouterr().err
    after = sqlite3.connect(root / "library.db").execute("SELECT COUNT(*) FROM sync_meta").fetchone()
    assert before == after


def test_titles_with_terminal_escape_codes_are_printed_harmless(tmp_path: Path, capsys) -> None:
    """Issue 37: a calibre title carrying escape codes (retitle the window, clear the screen) was printed raw."""
    from test_folders import _handmade_calibre

    hostile = "Alice\x1b]0;pwned\x07\x1b[2J\x1b[31m"
    folder = _handmade_calibre(
        tmp_path / "calibre",
        "CREATE TABLE books (id INTEGER, title TEXT, path TEXT, has_cover INTEGER, series_index);"
        f"INSERT INTO books VALUES (1, '{hostile}', 'A', 0, NULL);"
        "INSERT INTO data VALUES (1, 1, 'EPUB', 1, 'alice');",
    )
    (folder / "A").mkdir()
    (folder / "A" / "alice.epub").write_bytes(book_path("en/epubjs-alice.epub").read_bytes())
    library = ["--library", str(tmp_path / "lib")]
    assert main([*library, "import", str(folder)]) == 0
    quire = Quire(tmp_path / "lib")
    quire.edit_book(1, title=hostile)  # as if the reader had kept calibre's title as it was
    quire.close()
    capsys.readouterr()
    assert main([*library, "list"]) == 0
    shown = capsys.readouterr()
    assert "Alice" in shown.out and "\x1b" not in shown.out + shown.err and "\x07" not in shown.out
    assert main([*library, "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["title"] == hostile  # the data itself is kept exactly


def test_a_utf8_text_one_byte_short_keeps_what_reads_and_warns(tmp_path: Path, capsys) -> None:
    """Issue 37: a .txt whose last character was cut was refused whole."""
    data = book_path("zh/luxun_nahan.txt").read_bytes().rstrip()
    cut = tmp_path / "呐喊.txt"
    cut.write_bytes(data[:-1])  # the last character is three bytes in UTF-8: one of them gone
    assert main(["--library", str(tmp_path / "lib"), "import", str(cut)]) == 0
    assert "part-way through a character" in capsys.readouterr().err
    quire = Quire(tmp_path / "lib")
    [book] = quire.books()
    assert book.segment_count > 100
    quire.close()


def test_quire_list_names_each_books_edition_as_the_library_cards_do(tmp_path: Path, capsys) -> None:
    """Issue 39: 'quire list' labelled AZW3 books "[mobi]" (the reader's name) where the cards say AZW3."""
    library = ["--library", str(tmp_path / "lib")]
    books = [
        book_path("formats/epubjs-alice.azw3"),
        book_path("formats/idpf-moby-dick.mobi"),
        book_path("en/epubjs-alice.epub"),
    ]
    assert main([*library, "import", *map(str, books)]) == 0
    capsys.readouterr()
    assert main([*library, "list"]) == 0
    shown = capsys.readouterr().out
    assert "[AZW3, " in shown and "[MOBI, " in shown and "[EPUB, " in shown and "[mobi" not in shown
    assert main([*library, "list", "--json"]) == 0
    assert sorted(b["edition"] for b in json.loads(capsys.readouterr().out)) == ["AZW3", "EPUB", "MOBI"]
