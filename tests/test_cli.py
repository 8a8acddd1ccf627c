"""The quire command line, run as a user would (in-process and once as a real subprocess)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, book_path

from app.cli import main

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_import_list_toc_show_find_remove(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lib = ["--library", str(tmp_path / "lib")]
    code, _, err = run(
        capsys, "import", str(book_path("en/epubjs-alice.epub")), str(book_path("zh/luxun_nahan.txt")), *lib
    )
    assert code == 0 and "[2/2]" in err
    code, out, _ = run(capsys, "list", "--json", *lib)
    books = json.loads(out)
    assert [b["title"] for b in books] == ["luxun nahan", "Alice's Adventures in Wonderland"]
    code, out, _ = run(capsys, "toc", "alice", *lib)
    assert "3.0  Down The Rabbit-Hole" in out
    code, out, _ = run(capsys, "show", "alice", "3.2", "-n", "2", *lib)
    assert out.startswith("[3.2] Alice was beginning") and "[3.3]" in out
    code, out, _ = run(capsys, "find", "luxun", "孔乙己", "--json", *lib)
    hits = json.loads(out)
    assert hits and all("**孔乙己**" in h["snippet"] for h in hits)
    code, out, _ = run(capsys, "remove", "alice", *lib)
    assert code == 0 and "Removed Alice" in out
    code, out, _ = run(capsys, "list", "--json", *lib)
    assert len(json.loads(out)) == 1


def test_bookmarks_highlights_and_export(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lib = ["--library", str(tmp_path / "lib")]
    run(capsys, "import", str(book_path("en/epubjs-alice.epub")), *lib)
    code, out, _ = run(capsys, "bookmarks", "add", "1", "4.0", "--label", "Tears", "--json", *lib)
    assert json.loads(out)[0]["label"] == "Tears"
    code, out, _ = run(capsys, "highlights", "add", "1", "3.2", "--color", "green", "--note", "bored", *lib)
    assert code == 0 and "[green]" in out
    code, out, _ = run(capsys, "highlights", "list", "--json", *lib)
    assert json.loads(out)[0]["note"] == "bored"
    target = tmp_path / "alice.md"
    code, _, _ = run(capsys, "export", "1", "--format", "md", "-o", str(target), *lib)
    assert code == 0 and "**Note:** bored" in target.read_text(encoding="utf-8")


def test_errors_are_one_line_on_stderr_with_nonzero_exit(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lib = ["--library", str(tmp_path / "lib")]
    code, out, err = run(
        capsys, "import", str(book_path("malformed/epubcheck-ocf-zip-unreadable-empty-fatal.epub")), *lib
    )
    assert code == 1 and "refused: the file is empty" in err
    for args in (["toc", "nothing"], ["show", "1", "x.y"]):
        code, out, err = run(capsys, *args, *lib)
        assert code == 1 and out == ""
        assert err.startswith("quire: error: ") and err.count("\n") == 1


def test_a_blank_or_wildcard_reference_removes_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lib = ["--library", str(tmp_path / "lib")]
    run(capsys, "import", str(book_path("en/epubjs-alice.epub")), *lib)
    for reference in ("", " ", "%", "_", "²", "x" * 100_000):
        code, out, err = run(capsys, "remove", reference, *lib)
        assert code == 1 and out == "" and err.startswith("quire: error: ") and err.count("\n") == 1
        code, out, err = run(capsys, "toc", reference, *lib)
        assert code == 1 and "Traceback" not in err
    code, out, _ = run(capsys, "list", "--json", *lib)
    assert [b["title"] for b in json.loads(out)] == ["Alice's Adventures in Wonderland"]


def test_an_empty_library_folder_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "list", "--library", "")
    assert code == 2 and out == "" and "library" in err and err.count("\n") == 1


def test_python_dash_m_app_cli_uses_quire_library_env(tmp_path: Path) -> None:
    env = {**os.environ, "QUIRE_LIBRARY": str(tmp_path / "envlib"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "import", str(book_path("minimal/epubcheck-minimal.epub")), "--json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["book"]["title"] == "Minimal EPUB 3.0"
    assert (tmp_path / "envlib" / "library.db").exists()


def test_index_and_search_commands(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lib = ["--library", str(tmp_path / "lib")]
    run(capsys, "import", str(book_path("minimal/epubcheck-minimal.epub")), str(book_path("zh/luxun_nahan.txt")), *lib)
    code, out, err = run(capsys, "search", "luxun", "孔乙己", "--mode", "keyword", "--k", "2", *lib)
    assert code == 0 and out.startswith(" 1. [") and "孔乙己" in out
    code, out, err = run(capsys, "search", "luxun", "孔乙己", *lib)
    assert "not indexed yet" in err
    code, out, err = run(capsys, "index", "minimal", *lib)
    assert code == 0 and "Embedding model: all-MiniLM-L6-v2" in err and "chunks" in err
    code, out, _ = run(capsys, "search", "minimal", "content", "--json", *lib)
    passages = json.loads(out)
    assert passages and passages[0]["vector_rank"] == 1 and passages[0]["start"].startswith("0.")
    code, out, err = run(capsys, "search", "minimal", "content", "--before", "0.0", "--json", *lib)
    assert code == 0 and json.loads(out) == []  # the one chunk reaches past the reader's position
    code, out, err = run(capsys, "index", "minimal", "--embedder", "openai:x", *lib)
    assert code == 1 and "--base-url" in err


def test_search_names_the_printed_page_of_a_pdf(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lib = ["--library", str(tmp_path / "lib")]
    code, _, err = run(capsys, "import", str(book_path("formats/epubjs-alice.pdf")), *lib)
    told = [line.strip() for line in err.splitlines() if "pages read" in line]  # at each tenth of its 53 pages
    assert code == 0 and len(told) == 9 and told[0] == "epubjs-alice.pdf: 6 of 53 pages read", err
    code, out, _ = run(capsys, "search", "alice", "pink eyes", "--mode", "keyword", "--k", "1", *lib)
    assert code == 0 and re.search(r"Down The Rabbit-Hole, p\. \d+ \(score", out), out
    code, out, _ = run(capsys, "search", "alice", "pink eyes", "--mode", "keyword", "--k", "1", "--json", *lib)
    assert json.loads(out)[0]["page"].isdigit()


def test_a_model_is_downloaded_on_first_use_and_offline_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from httpkit import closed_port

    from core.rag import models

    unreachable = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setitem(models.CATALOG, "bge-small-zh-v1.5", models.ModelSpec(
        "bge-small-zh-v1.5", ("zh",), 512, 512, "cls",
        files=(models.ModelFile("model.onnx", f"{unreachable}/model.onnx"), models.ModelFile("tokenizer.json", f"{unreachable}/t.json")),
    ))  # fmt: skip
    lib = ["--library", str(tmp_path / "lib")]
    run(capsys, "import", str(book_path("zh/luxun_nahan.txt")), *lib)
    code, out, err = run(capsys, "index", "1", "--embedder", "bge-small-zh-v1.5", *lib)
    assert code == 1 and "you seem to be offline" in err and err.count("\n") == 1
    code, out, _ = run(capsys, "models", "--json", *lib)
    assert {m["name"]: m["available"] for m in json.loads(out)}["bge-small-zh-v1.5"] is False


def test_position_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lib = ["--library", str(tmp_path / "lib")]
    run(capsys, "import", str(book_path("en/epubjs-alice.epub")), *lib)
    assert run(capsys, "position", "1", *lib)[1] == "Not started yet.\n"
    code, out, _ = run(capsys, "position", "1", "5.3", "--json", *lib)
    assert code == 0 and json.loads(out)["locator"] == "5.3"
    assert run(capsys, "position", "1", *lib)[1].startswith("At 5.3 (")
    run(capsys, "position", "1", "9.0", *lib)  # read on to 9.0, then back to 5.3: the furthest stays at 9.0
    code, out, _ = run(capsys, "position", "1", "5.3", "--json", *lib)
    both = json.loads(out)
    assert (both["current"], both["furthest"]) == ("5.3", "9.0") and both["current_percent"] < both["furthest_percent"]
    code, out, _ = run(capsys, "position", "1", "--reset-furthest", "--json", *lib)  # back to the current place
    assert code == 0 and json.loads(out)["furthest"] == "5.3"
    code, out, _ = run(capsys, "position", "1", "--reset-furthest", "2.0", "--json", *lib)
    assert (json.loads(out)["current"], json.loads(out)["furthest"]) == ("2.0", "2.0")


def test_options_work_before_and_after_the_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    library = str(tmp_path / "lib")
    code, _, _ = run(capsys, "--library", library, "import", str(book_path("en/epubjs-alice.epub")))
    assert code == 0
    _, before, _ = run(capsys, "--library", library, "--json", "list")
    _, after, _ = run(capsys, "list", "--library", library, "--json")
    assert [b["title"] for b in json.loads(before)] == ["Alice's Adventures in Wonderland"]
    assert before == after


def test_the_command_line_adds_its_own_advice_to_the_cores_messages(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "toc", "no such book", "--library", str(tmp_path / "lib"))
    assert code == 1
    assert (
        err.strip()
        == "quire: error: no book in the library matches 'no such book' (run 'quire list' to see the library)"
    )


def test_edit_sets_title_and_authors_and_find_then_knows_the_book(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lib = ["--library", str(tmp_path / "lib")]
    run(capsys, "import", str(book_path("zh/hongloumeng_120.md")), *lib)
    assert run(capsys, "find", "红楼梦", "黛玉", *lib)[0] != 0  # the file never says its title
    code, out, _ = run(
        capsys, "edit", "1", "--title", "红楼梦", "--author", "曹雪芹", "--author", "高鹗", "--json", *lib
    )
    assert code == 0 and (json.loads(out)["title"], json.loads(out)["authors"]) == ("红楼梦", ["曹雪芹", "高鹗"])
    code, out, _ = run(capsys, "find", "红楼梦", "黛玉", *lib)
    assert code == 0 and "黛玉" in out
    code, _, err = run(capsys, "edit", "1", "--title", "  ", *lib)
    assert code != 0 and "needs a title" in err
    assert run(capsys, "edit", "1", *lib)[0] != 0  # nothing to change: says what to write


def test_sync_setup_sync_and_status_through_webdav(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch
) -> None:
    from davkit import PASSWORD, USER, dav_server

    from platform_adapters.memory import memory_platform

    phone, desk = memory_platform(tmp_path / "p"), memory_platform(tmp_path / "d")
    monkeypatch.setenv("QUIRE_SYNC_PASSWORD", PASSWORD)
    with dav_server(tmp_path / "dav") as url:
        for where, platform in (("phone", phone), ("desk", desk)):
            library = str(tmp_path / where)
            assert main(["--library", library, "sync", "setup", url, "--user", USER], platform) == 0
            assert "sync is set up" in capsys.readouterr().out
        main(["--library", str(tmp_path / "phone"), "import", str(book_path("en/epubjs-alice.epub"))], phone)
        main(["--library", str(tmp_path / "phone"), "position", "1", "7.2"], phone)
        capsys.readouterr()
        assert main(["--library", str(tmp_path / "phone"), "sync", "--json"], phone) == 0
        sent = json.loads(capsys.readouterr().out)
        assert sent["sent"] >= 3 and sent["books_sent"] == ["Alice's Adventures in Wonderland"]
        assert main(["--library", str(tmp_path / "desk"), "sync"], desk) == 0
        assert "book received: Alice's Adventures in Wonderland" in capsys.readouterr().out
        assert main(["--library", str(tmp_path / "desk"), "position", "1", "--json"], desk) == 0
        assert json.loads(capsys.readouterr().out)["current"] == "7.2"
        assert main(["--library", str(tmp_path / "desk"), "sync", "status", "--json"], desk) == 0
        status = json.loads(capsys.readouterr().out)
        assert status["unsent_files"] == 0 and status["last"]["books_received"] and PASSWORD not in json.dumps(status)
    code = main(["--library", str(tmp_path / "desk"), "sync"], desk)
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("quire: error: ") and "could not reach" in err  # the server is gone


def test_sync_to_a_folder_needs_no_secret_store(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Found by running it: on a computer without a keyring, 'quire sync setup FOLDER' asked the keyring anyway."""
    from platform_adapters.base import Platform
    from platform_adapters.memory import memory_platform

    class NoKeyring:
        def get(self, name: str) -> str | None:
            raise AssertionError(f"asked the secret store for {name}")

        set = delete = get

    plain = memory_platform(tmp_path / "p")
    platform = Platform(plain.name, plain.paths, NoKeyring(), plain.capabilities, plain.files)
    (tmp_path / "shared").mkdir()
    library = str(tmp_path / "lib")
    assert main(["--library", library, "import", str(book_path("en/epubjs-alice.epub"))], platform) == 0
    assert main(["--library", library, "sync", "setup", str(tmp_path / "shared")], platform) == 0
    assert main(["--library", library, "sync"], platform) == 0
    assert "sent" in capsys.readouterr().out


def test_find_lists_matches_in_book_order_with_a_count(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lib = ["--library", str(tmp_path / "lib")]
    run(capsys, "import", str(book_path("en/epubjs-alice.epub")), *lib)
    code, out, _ = run(capsys, "find", "alice", "Rabbit", "--all", "--json", *lib)
    every = json.loads(out)
    places = [tuple(int(n) for n in re.split(r"[.:]", h["locator"])) for h in every]
    assert code == 0 and len(every) > 20 and places == sorted(places)  # first mention first, as the app lists them
    code, out, err = run(capsys, "find", "alice", "Rabbit", "--limit", "3", *lib)
    assert len(out.splitlines()) == 3 and "the first 3 matches in book order; --all lists every one" in err
    code, out, err = run(capsys, "find", "alice", "Rabbit", "--all", *lib)
    assert len(out.splitlines()) == len(every) and f"{len(every)} match(es), in book order" in err


def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    """``quire find … | head -1``: the reader of the output leaves early; no traceback, the shell's 141."""
    library = str(tmp_path / "lib")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "app.cli", "import", str(book_path("zh/luxun_nahan.txt")), "--library",
                    library], check=True, capture_output=True, env=env)  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "find", "1", "的", "--all", "--library", library],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert process.stdout is not None and process.stderr is not None
    assert "的" in process.stdout.readline().decode()  # 170 kB follow: more than a pipe holds
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141 and "Traceback" not in err and "BrokenPipe" not in err


@pytest.fixture
def no_keyring():
    """The real keyring package with no backend, as on a headless Linux machine."""
    import keyring
    from keyring.backends import fail

    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(before)


def test_webdav_sync_works_without_a_keyring(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch, no_keyring
) -> None:
    """A server without a login needs no secret; $QUIRE_SYNC_PASSWORD works with no keyring; a missing keyring
    gets an error that says what to do."""
    from davkit import PASSWORD, USER, dav_server

    from platform_adapters.base import Platform
    from platform_adapters.desktop import KeyringSecrets
    from platform_adapters.memory import memory_platform

    plain = memory_platform(tmp_path / "p")
    platform = Platform(plain.name, plain.paths, KeyringSecrets(), plain.capabilities, plain.files)
    monkeypatch.delenv("QUIRE_SYNC_PASSWORD", raising=False)
    with dav_server(tmp_path / "open", login=False) as url:
        library = ["--library", str(tmp_path / "open-lib")]
        assert main([*library, "sync", "setup", url], platform) == 0
        assert main([*library, "sync"], platform) == 0 and main([*library, "sync", "status"], platform) == 0
    with dav_server(tmp_path / "dav") as url:
        library = ["--library", str(tmp_path / "lib")]
        monkeypatch.setattr("getpass.getpass", lambda prompt: PASSWORD)
        monkeypatch.setattr("sys.stdin.isatty", lambda: True)  # the password is typed at a terminal
        capsys.readouterr()
        assert main([*library, "sync", "setup", url, "--user", USER], platform) == 1
        err = capsys.readouterr().err
        assert "NoKeyringError" in err and "$QUIRE_SYNC_PASSWORD" in err and "Traceback" not in err
        assert PASSWORD not in err
        monkeypatch.setenv("QUIRE_SYNC_PASSWORD", PASSWORD)
        assert main([*library, "sync", "setup", url, "--user", USER], platform) == 0
        assert main([*library, "import", str(book_path("en/epubjs-alice.epub"))], platform) == 0
        capsys.readouterr()
        assert main([*library, "sync", "--json"], platform) == 0
        assert json.loads(capsys.readouterr().out)["books_sent"] == ["Alice's Adventures in Wonderland"]
        assert main([*library, "sync", "status"], platform) == 0


def test_a_command_names_its_book_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 36: a command resolved its book reference at every call it made (a title scanned every title each
    time); the CLI now resolves it once, where it comes in, and "1984" is Orwell's book when no book has that id."""
    from core.library import Library

    lib = ["--library", str(tmp_path / "lib")]
    orwell = tmp_path / "1984.txt"
    orwell.write_text("Winston Smith walked home.\n\nWinston Smith slept.\n", encoding="utf-8")
    assert run(capsys, "import", str(orwell), str(book_path("en/epubjs-alice.epub")), *lib)[0] == 0
    named: list[object] = []
    real = Library.resolve
    monkeypatch.setattr(Library, "resolve", lambda self, reference: named.append(reference) or real(self, reference))
    code, out, _ = run(capsys, "xray", "1984", *lib)  # its X-Ray, then its place (nothing read): two calls
    assert code == 0 and out.startswith("Nothing read yet") and named == ["1984"]
    named.clear()
    code, _, err = run(capsys, "xray", "Emma", *lib)
    assert code == 1 and "no book in the library matches 'Emma'" in err and named == ["Emma"]


def test_a_citation_line_cut_from_dialogue_shows_no_stray_quotation_mark(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 60 item 5: `quire ask`'s citation lines kept a stray closing quote ("[1] 2.131:1: And what of Irene
    Adler?” I asked"): the line's quote is balanced as the app's quotes are, also when cut at 100 characters."""
    from app.cli.companion import _print_events
    from core import Citation, CitationEvent, Done, Locator

    said = "And what of Irene Adler?” I asked."
    long = "“" + "a very long speech " * 8 + "that goes on,” he said."
    events = [CitationEvent(Citation(1, 1, Locator(2, 131, 1), Locator(2, 131, 35), said)),
              CitationEvent(Citation(1, 2, Locator(2, 140, 0), Locator(2, 140, len(long)), long)), Done()]  # fmt: skip
    assert _print_events(events, as_json=False) == 0
    lines = [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert lines[0] == "[1] 2.131:1: “And what of Irene Adler?” I asked."
    assert lines[1].startswith("[2] 2.140:0: “a very long") and lines[1].endswith("…”") and len(lines[1]) < 130
