"""X-Ray: the names a book has used up to the furthest place read, and nothing from past it (issue 28)."""

import json
import re

import pytest
from conftest import book_path
from dbkit import inside

from app.cli import main as cli
from core.companion import xray as xray_module
from core.services import Quire

pytestmark = pytest.mark.storage  # new tables and queries: CI runs them again on the phones' backend (apsw)


@pytest.fixture
def moby(quire: Quire) -> int:
    return quire.import_paths([book_path("en/idpf-moby-dick.epub")])[0].book.id


def _first_ordinal(quire: Quire, book: int, word: str) -> int:
    """Where a word first appears in the book's text, found without X-Ray (a plain scan of the segments)."""
    rows = inside(quire).library.conn.execute(
        "SELECT ordinal, text FROM segments WHERE book_id = ? AND kind != 'heading' ORDER BY ordinal", (book,)
    )
    return next(ordinal for ordinal, text in rows if re.search(rf"\b{re.escape(word)}\b", text))


def test_nothing_is_shown_before_the_reader_opens_the_book(quire: Quire, moby: int) -> None:
    assert quire.companion.xray(moby) == []
    assert any(e.name == "Ahab" for e in quire.companion.xray(moby, spoilers=True))  # the whole book, on request


def test_a_place_shows_only_names_met_before_it_and_counts_only_those_mentions(quire: Quire, moby: int) -> None:
    ahab = _first_ordinal(quire, moby, "Ahab")
    place = ahab - 1  # the reader is just before Ahab's first mention
    quire.save_position(moby, quire.text.segments(moby, place, 1)[0].locator)
    entries = quire.companion.xray(moby)
    names = {e.name for e in entries}
    assert "Queequeg" in names and "Ahab" not in names and "Captain Ahab" not in names
    for entry in entries:  # every count, place and quoted sentence comes from before the place
        assert entry.first.ordinal <= place and all(m.ordinal <= place for m in entry.places)
        assert entry.mentions == len(entry.places)
    whole = {e.name: e for e in quire.companion.xray(moby, spoilers=True)}
    queequeg = next(e for e in entries if e.name == "Queequeg")
    assert queequeg.mentions < whole["Queequeg"].mentions  # the later mentions are not counted

    quire.save_position(moby, quire.text.segments(moby, ahab + 400, 1)[0].locator)  # read on past him
    ahab_entry = next(e for e in quire.companion.xray(moby) if e.name == "Ahab")
    assert ahab_entry.first.ordinal == ahab and {"Ahab", "Captain Ahab"} <= set(ahab_entry.variants)
    assert ahab_entry.kind == "person" and "Ahab" in ahab_entry.introduced[0]


STORY = """# One

We met Holmes at the station. Later Holmes smoked, and Watson watched Holmes.

# Two

Watson wrote it down. Holmes said nothing to Watson.

# Three

Then Mr. Sherlock Holmes of Baker Street stood up, and Sherlock Holmes spoke to Moriarty and Moriarty fled.
"""


def test_a_longer_form_met_later_does_not_show_as_a_variant(quire: Quire) -> None:
    """Variants merge from the mentions before the place only: "Sherlock Holmes", first written in chapter three,
    must not show as Holmes's full name to a reader in chapter two; nor Moriarty, named only there."""
    book = quire.import_bytes(STORY.encode(), "story.md").book.id
    chapter = {row.title: row.locator for row in quire.text.toc(book)}
    quire.save_position(book, chapter["Two"])
    quire.save_position(book, quire.text.section(book, chapter["Two"].section)[-1].locator)  # read chapter two
    entries = {e.name: e for e in quire.companion.xray(book)}
    assert set(entries) == {"Holmes", "Watson"} and entries["Holmes"].variants == ("Holmes",)
    assert entries["Holmes"].mentions == 4 and entries["Watson"].mentions == 3
    quire.save_position(book, quire.text.section(book, chapter["Three"].section)[-1].locator)
    entries = {e.name: e for e in quire.companion.xray(book)}
    assert set(entries["Sherlock Holmes"].variants) == {"Holmes", "Sherlock Holmes", "Mr. Sherlock Holmes"}
    assert "Moriarty" in entries
    assert entries["Sherlock Holmes"].mentions == 6 and entries["Sherlock Holmes"].kind == "person"


def test_names_are_found_once_and_go_with_their_book(quire: Quire, moby: int, monkeypatch) -> None:
    quire.save_position(moby, quire.text.segments(moby, 500, 1)[0].locator)
    quire.companion.xray(moby)
    conn = inside(quire).library.conn
    stored = "SELECT COUNT(*), MAX(ordinal) FROM name_mentions WHERE book_id = ?"
    count, last = conn.execute(stored, (moby,)).fetchone()
    assert count > 500 and last <= 500  # the text up to the place only
    scans = []
    real = xray_module.name_mentions
    monkeypatch.setattr(xray_module, "name_mentions", lambda text: scans.append(text) or real(text))
    quire.companion.xray(moby)
    assert scans == [] and not quire.companion.xray_needs_scan(moby)  # the same place only selects
    quire.save_position(moby, quire.text.segments(moby, 520, 1)[0].locator)
    assert quire.companion.xray_needs_scan(moby)
    quire.companion.xray(moby)
    assert 0 < len(scans) <= 20  # read on: only the paragraphs read since are scanned
    assert conn.execute(stored, (moby,)).fetchone()[0] > count
    scans.clear()
    monkeypatch.setattr(xray_module, "SCAN_VERSION", xray_module.SCAN_VERSION + 1)
    quire.companion.xray(moby)
    assert scans  # a better finder reads the book again, once
    quire.remove(moby)
    assert conn.execute("SELECT COUNT(*) FROM name_mentions").fetchone()[0] == 0


def test_quire_xray_prints_names_and_json_bounded_by_the_place(tmp_path, capsys) -> None:
    library = str(tmp_path / "lib")
    assert cli(["--library", library, "import", str(book_path("en/epubjs-alice.epub"))]) == 0
    capsys.readouterr()
    assert cli(["--library", library, "xray", "1"]) == 0
    assert "Nothing read yet" in capsys.readouterr().out
    assert cli(["--library", library, "position", "1", "5.10"]) == 0
    capsys.readouterr()
    assert cli(["--library", library, "xray", "1", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    alice = entries[0]
    assert alice["name"] == "Alice" and alice["kind"] == "person" and int(alice["first"].split(".")[0]) <= 5
    assert {"name", "variants", "mentions", "first", "introduced", "places"} <= set(alice)
    assert all(int(p["locator"].split(".")[0]) <= 5 for e in entries for p in e["places"])
    assert cli(["--library", library, "xray", "1", "--spoilers", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) > len(entries)


def test_the_ai_describes_names_from_the_sentences_before_the_place_only_and_cites_them(quire: Quire) -> None:
    """Issue 28: with a provider, one line per entry, written from the numbered sentences sent (all before the
    place), each citing them; a line citing a number that was not sent is dropped; a refused key is typed."""
    from openai_mock import OpenAIMock

    from core import ProviderConfig, ProviderError

    book = quire.import_bytes(STORY.encode(), "story.md").book.id
    chapter = {row.title: row.locator for row in quire.text.toc(book)}
    quire.save_position(book, quire.text.section(book, chapter["Two"].section)[-1].locator)
    reply = ("Holmes: a man met at the station who smokes. [1][2]\nWatson: Holmes's companion, who writes. [4]\n"
             "Moriarty: the villain. [9]")  # fmt: skip
    with OpenAIMock([[{"content": reply}], 401]) as mock:
        config = ProviderConfig("openai-compatible", "test-model", base_url=mock.url)
        lines = quire.companion.describe(book, config)
        sent = json.dumps(mock.requests[-1]["body"], ensure_ascii=False)
        assert "Holmes" in sent and "Watson" in sent and "not use anything you remember" in sent
        assert "[1] <book_text>We met Holmes at the station.</book_text>" in sent  # the book's text, fenced as data
        assert "Sherlock" not in sent and "Moriarty" not in sent and "Baker Street" not in sent  # nothing past it
        assert set(lines) == {"Holmes", "Watson"}  # Moriarty: not an entry, and cited a number never sent
        holmes = lines["Holmes"]
        assert holmes.text == "a man met at the station who smokes." and [c.passage for c in holmes.citations] == [1, 2]
        for citation in holmes.citations:  # each the book's own words, before the place
            segment = quire.text.show(book, citation.start.segment_locator)[0]
            assert segment.text[citation.start.offset : citation.end.offset] == citation.quote
            assert quire.text.ordinal_of(book, citation.start) <= quire.position(book).furthest_ordinal
        with pytest.raises(ProviderError):
            quire.companion.describe(book, config)  # the scripted 401


def test_the_reader_reads_xray_again_only_when_the_furthest_place_moves(quire: Quire, moby: int, monkeypatch) -> None:
    from app.screens.reader.model import ReaderViewModel

    quire.save_position(moby, quire.text.segments(moby, 300, 1)[0].locator)
    reader = ReaderViewModel(quire, moby)
    reader.open()
    reads = []
    real = quire.companion.xray
    monkeypatch.setattr(quire.companion, "xray", lambda book, **kw: reads.append(book) or real(book, **kw))
    first = reader.read_xray()
    assert reader.read_xray() is first and len(reads) == 1  # a redraw (a page turn, who-is) reads nothing again
    reader.xray_lines = {"Queequeg": object()}  # the AI's lines for this place
    quire.save_position(moby, quire.text.segments(moby, 900, 1)[0].locator)  # read on
    assert len(reader.read_xray()) > len(first) and len(reads) == 2
    assert reader.xray_lines == {}  # written for the old place: not kept for another (it may lie before them)


def test_chinese_names_are_found_up_to_the_place_and_not_past_it(quire: Quire) -> None:
    """呐喊 read to the end of 孔乙己: 孔乙己 is a person with his mentions, each before the place; names that first
    appear in later stories (阿Ｑ, 赵太爷, 七斤 …) are not shown, not even counted. Read on to the end and they are,
    阿Ｑ (written with a full-width letter) as one name."""
    book = quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book.id
    toc = quire.text.toc(book)
    after = next(i for i, row in enumerate(toc) if row.title.strip() == "孔乙己") + 1
    bound = quire.text.ordinal_of(book, toc[after].locator) - 1
    quire.save_position(book, quire.text.segments(book, bound, 1)[0].locator)
    texts = [s.text for s in quire.text.segments(book, 0, quire.book(book).segment_count)]
    later = {n for n in ("阿Ｑ", "赵太爷", "七斤", "单四嫂子", "华老栓") if not any(n in t for t in texts[: bound + 1])}
    assert len(later) >= 4  # the story order of this edition, checked without X-Ray
    entries = {e.name: e for e in quire.companion.xray(book)}
    kong = entries["孔乙己"]
    assert kong.kind == "person" and kong.mentions >= 20
    assert all(m.ordinal <= bound for e in entries.values() for m in e.places)
    assert not later & {v for e in entries.values() for v in e.variants}
    segment = quire.text.show(book, kong.first.locator.segment_locator)[0]
    assert segment.text[kong.first.locator.offset :].startswith("孔乙己")  # the first mention, exactly
    quire.save_position(book, quire.text.segments(book, len(texts) - 1, 1)[0].locator)
    whole = {e.name: e for e in quire.companion.xray(book)}
    assert {"阿Ｑ", "赵太爷"} <= set(whole) and whole["阿Ｑ"].mentions > 200 and whole["赵太爷"].kind == "person"
    assert whole["孔乙己"].mentions >= kong.mentions


def test_a_chinese_name_and_its_other_forms_are_one_entry_and_common_words_are_not_names(quire: Quire) -> None:
    """红楼梦's first seven chapters: 黛玉 and 林黛玉 are one entry, as are 凤姐 and 凤姐儿; 明白 and 冷笑, which
    jieba's dictionary tags as names, are not entries (the book uses them no more than usual)."""
    book = quire.import_paths([book_path("zh/hongloumeng_120.md")])[0].book.id
    start = next(row.locator for row in quire.text.toc(book) if row.title.startswith("第八回"))
    quire.save_position(book, quire.text.segments(book, quire.text.ordinal_of(book, start) - 1, 1)[0].locator)
    entries = quire.companion.xray(book)
    by_variant = {v: e for e in entries for v in e.variants}
    assert by_variant["黛玉"] is by_variant["林黛玉"] and by_variant["黛玉"].name == "黛玉"
    assert by_variant["凤姐"] is by_variant["凤姐儿"] and by_variant["凤姐"].kind == "person"
    assert entries[0].name == "宝玉" and by_variant["金陵"].kind == "place"
    assert not {"明白", "冷笑", "东西"} & set(by_variant)


def test_where_chinese_words_cannot_be_tagged_the_x_ray_says_so(quire: Quire, monkeypatch) -> None:
    """Phones: jieba is not built for them, so Chinese names are not found there, and the app says why."""
    from core.companion import names_zh

    monkeypatch.setattr(names_zh, "_tagger", lambda: None)
    book = quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book.id
    quire.save_position(book, quire.text.segments(book, 600, 1)[0].locator)
    assert quire.companion.xray(book) == [] and not quire.companion.finds_chinese_names


SCANDAL = """# Imprint

Printed in the United States. Published in the United States by a house of the United States.

# I

To Sherlock Holmes she is always the woman. I had seen little of Holmes lately. Holmes was seated in his armchair,
and Holmes smiled. "You have put on weight, Doctor," said Holmes. "Seven!" I answered, Doctor as I am.

The visitor was a German, and a Bohemian noble. "Your Majesty," said Holmes, "the German paper." His Majesty
nodded. "Your Majesty had not spoken," said Holmes. A Bohemian would know it, a German would write it.

The name was that of the well-known adventuress, Irene Adler. "Irene Adler," I read. Irene Adler sang at La Scala.
"""


def test_titles_nationalities_and_the_imprint_are_not_names_and_people_are_people(quire: Quire) -> None:
    """Issue 38, at the end of a story collection's first part: "Majesty", "German", "Bohemian" and "Doctor" were
    entries, Irene Adler a term, Holmes first met at 2.3 although 2.2 opens "To Sherlock Holmes she is always the
    woman", his entry never took that fuller name, and "United States" came from the imprint."""
    book = quire.import_bytes(SCANDAL.encode(), "scandal.md").book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = {e.name: e for e in quire.companion.xray(book.id)}
    assert set(entries) == {"Sherlock Holmes", "Irene Adler"}, set(entries)
    holmes, adler = entries["Sherlock Holmes"], entries["Irene Adler"]
    assert holmes.kind == adler.kind == "person"
    first = quire.text.segments(book.id, holmes.first.ordinal, 1)[0].text
    assert first.startswith("To Sherlock Holmes") and set(holmes.variants) == {"Sherlock Holmes", "Holmes"}
    assert holmes.mentions == len(holmes.places) == 7 and adler.mentions == len(adler.places) == 3


# Issue 57's defects, each kind reproduced: names cut into pieces ("Carthy", "Neville St" and "Clair"), a sentence's
# first word taken into a name, a diary's heading taken for a name, a common word capitalised once, places called
# people or terms, and in Chinese one doctor as two entries.
PIECES = """# One

Mr. Neville St. Clair lived at Lee. Young McCarthy went to London with Holmes. “Neville St. Clair is gone,” said Holmes.

Later Holmes walked to Brixton Road. McCarthy said nothing. The body was found in Brixton Road.

# Two

Dr. Seward’s Diary.

Seward wrote by lamplight. Seward said the Thing was there. The thing moved; a thing of horror, a thing of night. He came from London and went back to London.

Dr. Seward’s Diary.
"""


def test_names_are_whole_and_judged_by_how_the_book_uses_them(quire: Quire) -> None:
    """McCarthy and Neville St. Clair are one name each; "Later Holmes" is Holmes; "Seward’s Diary" is Seward's;
    "Thing", which the book writes in lowercase more often, is no name; London and Brixton Road, gone to and found
    in, are places; Seward, who says and writes, is a person."""
    book = quire.import_bytes(PIECES.encode(), "pieces.md").book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = {e.name: e for e in quire.companion.xray(book.id)}
    assert set(entries) == {"Neville St. Clair", "McCarthy", "Holmes", "London", "Brixton Road", "Seward"}, entries
    kinds = {name: e.kind for name, e in entries.items()}
    assert kinds == {"Neville St. Clair": "person", "McCarthy": "person", "Holmes": "person", "London": "place",
                     "Brixton Road": "place", "Seward": "person"}  # fmt: skip
    assert entries["Seward"].mentions == 4 and entries["Holmes"].mentions == 3


def test_one_surname_for_two_people_and_the_pages_around_the_story(quire: Quire) -> None:
    """Pride and Prejudice: Mr. Bennet and Mrs. Bennet are two people, each an entry of their own; Meryton and
    London are places; nothing comes from the imprint and the licence around the story ("United States")."""
    book = quire.import_paths([book_path("en/standardebooks-pride-and-prejudice.epub")])[0].book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = {e.name: e for e in quire.companion.xray(book.id)}
    assert {"Mr. Bennet", "Mrs. Bennet", "Mr. Collins", "Mrs. Collins"} <= set(entries)
    assert all(entries[n].kind == "person" for n in ("Mr. Bennet", "Mrs. Bennet"))
    assert entries["Meryton"].kind == "place" and entries["London"].kind == "place"
    assert not {"United States", "Uncopyright", "Christmas", "God"} & set(entries)


def test_a_title_alone_is_the_one_person_the_book_gives_it_and_common_words_are_not_names(quire: Quire) -> None:
    """Dracula: "the Count" is Count Dracula's entry, not one of its own; "Thing", "Death" and "Friend", which the
    book writes in lowercase far more, are not names; Whitby and the Carpathians' Borgo Pass are places."""
    book = quire.import_paths([book_path("en/standardebooks-dracula.epub")])[0].book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = {e.name: e for e in quire.companion.xray(book.id)}
    assert not {"Count", "Professor", "Thing", "Death", "Friend", "Seward’s Diary"} & set(entries)
    dracula = next(e for e in entries.values() if "Count Dracula" in e.variants)
    assert "Count" in dracula.variants and dracula.kind == "person"
    assert entries["Whitby"].kind == "place" and entries["Borgo Pass"].kind == "place"


def test_a_chinese_name_with_and_without_its_title_is_one_entry(quire: Quire) -> None:
    """陈莲河 and 陈莲河先生 are one doctor; 南京, gone to and come back from, is a place."""
    pytest.importorskip("jieba", reason="X-Ray finds Chinese names with jieba's tagger (computers only)")
    text = (
        "# 一\n\n陈莲河先生来了，陈莲河说道：“好。”我到南京去。\n\n陈莲河先生笑了。陈莲河说道：“是。”我从南京回来。\n"
    )
    book = quire.import_bytes(text.encode(), "doctor.md").book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = quire.companion.xray(book.id)
    doctor = [e for e in entries if "陈莲河" in e.variants or "陈莲河先生" in e.variants]
    assert len(doctor) == 1 and set(doctor[0].variants) == {"陈莲河", "陈莲河先生"} and doctor[0].kind == "person"
    assert next(e for e in entries if e.name == "南京").kind == "place"


def test_chinese_forms_with_a_character_glued_on_are_the_name_and_introduced_names_are_found(quire: Quire) -> None:
    """红楼梦 to the end of 第五回: jieba glues a character to a name (黛玉方, 贾母命, 薛蟠见); those mentions are the
    name's, never entries or variants of their own, and a tagged word that is a piece of something longer (政老爹,
    世人都晓, 甄士隐, 金百蝶穿) is no entry. Issue 57: names the book introduces with a naming phrase (名唤袭人,
    名唤封肃, 取名为李纨, 名元春; 有处曰姑苏, 有城曰阊门) are found, whatever the tagger cut them into, and take the
    kind the phrase gives. (Two-character forms such as 那僧 are not mended yet.)"""
    pytest.importorskip("jieba", reason="X-Ray finds Chinese names with jieba's tagger (computers only)")
    book = quire.import_paths([book_path("zh/hongloumeng_120.md")])[0].book.id
    start = next(row.locator for row in quire.text.toc(book) if row.title.startswith("第六回"))
    quire.save_position(book, quire.text.segments(book, quire.text.ordinal_of(book, start) - 1, 1)[0].locator)
    by_variant = {v: e for e in quire.companion.xray(book) for v in e.variants}
    assert {"黛玉", "贾母"} <= by_variant.keys()
    assert not {"黛玉方", "贾母命", "薛蟠见", "贾政之"} & by_variant.keys()
    assert not {"老爹", "甄士", "都晓", "金百蝶"} & by_variant.keys()
    for name in ("袭人", "封肃", "李纨", "元春"):
        assert by_variant[name].kind == "person", name
    assert by_variant["袭人"].mentions >= 10  # every use, not only the ones the tagger kept whole
    for name in ("姑苏", "阊门", "青埂峰"):
        assert by_variant[name].kind == "place", name
    # Terms the book marks: titles in 《》 and a phrase it quotes on its own ('护官符'); 雨村 speaks, so he is a
    # person though his name ends in 村.
    for name in ("好了歌", "石头记", "护官符"):
        assert by_variant[name].kind == "term", name
    assert by_variant["雨村"].kind == "person"
    # Given names the dictionary tags as a person's but no surname starts: kept, the book names them (名迎春).
    assert by_variant["迎春"].kind == by_variant["探春"].kind == "person"
    assert (
        "通灵" in by_variant
    )  # always quoted (‘通灵’), but the short form of 通灵宝玉: a name, not a word talked about


def test_a_being_spoken_for_with_the_is_a_person(quire: Quire) -> None:
    """Issue 57: a character the book names with "the" ("an astronomer called Stent" was a term): in Alice, the Lory,
    the Duck and the Eaglet speak ("said the Lory"), so they are people, not terms."""
    quire.import_paths([book_path("en/epubjs-alice.epub")])
    row = next(r for r in quire.text.toc(1) if r.title == "The Rabbit Sends In A Little Bill")
    quire.save_position(1, quire.text.segments(1, quire.text.ordinal_of(1, row.locator) - 1, 1)[0].locator)
    kinds = {e.name: e.kind for e in quire.companion.xray(1)}
    assert {kinds.get(name) for name in ("Lory", "Duck", "Eaglet")} == {"person"}, kinds


def test_a_firm_is_one_entry_across_its_commas_and_accents_stay_in_a_name(quire: Quire) -> None:
    """Issue 57: firms were cut at their commas ("Mitchell", "Candy", "Carter Paterson" as three names), and a
    letter with an accent cut a name ("Zoölogical Gardens" gave "Gardens"). In Dracula each is one entry, a firm a
    term; a name with a degree after it is a person's; Lloyd’s is written so."""
    book = quire.import_paths([book_path("en/standardebooks-dracula.epub")])[0].book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = {e.name: e for e in quire.companion.xray(book.id)}
    for firm in ("Carter, Paterson & Co.", "Mitchell, Sons, & Candy"):
        assert firm in entries and entries[firm].kind == "term", sorted(n for n in entries if "&" in n)
    assert "Zoölogical Gardens" in entries and not {"Gardens", "Candy", "Mitchell", "Carter Paterson"} & set(entries)
    assert entries["Patrick Hennessey"].kind == "person"  # "Patrick Hennessey, M.D." signs a letter: not a place
    # A name the book writes with its possessive every time, owning nothing by it ("to Lloyd’s from anywhere"),
    # keeps it; a French saint's "Ste." is a title, never an entry.
    assert "Lloyd’s" in entries and "Lloyd" not in entries
    assert "Ste" not in entries


def test_an_editors_notes_give_no_entries(quire: Quire) -> None:
    """Issue 57: the pages around the story give nothing; 呐喊's editor's notes (each opening with its marker, ⑸, and
    running on over the lines after it) named people the stories never do: 范源濂 and 胡适 came from them."""
    book = quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    names = {e.name for e in quire.companion.xray(book.id)}
    assert "阿Ｑ" in names and not {"范源濂", "胡适"} & names


def test_chinese_names_the_tagger_never_tags_are_found_by_how_the_book_repeats_them(quire: Quire) -> None:
    """Issue 57: half of a Chinese story's people and places never reached X-Ray, because jieba cuts a name it does
    not know into words (赵白眼 as 赵 + 白眼, 三太太 as 三 + 太太, 平桥村 as 平桥 + 村). Found now from the book read so
    far: repeated, with free edges, and a name's shape (a surname that speaks, a title, a place's ending, 老 before);
    their kind is their shape's. A wife named for her husband is her own entry (七斤嫂 is not 七斤 with a title)."""
    pytest.importorskip("jieba", reason="X-Ray finds Chinese names with jieba's tagger (computers only)")
    book = quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    by_variant = {v: e for e in quire.companion.xray(book.id) for v in e.variants}
    for name in ("赵白眼", "三太太", "老拱", "方玄绰"):
        assert by_variant[name].kind == "person", name
    for name in ("平桥村", "狼子村", "静修庵"):
        assert by_variant[name].kind == "place", name
    assert "七斤" not in by_variant["七斤嫂"].variants
    assert "邹七" not in by_variant  # only ever written as 邹七嫂 (his wife): no entry of its own
    assert by_variant["杨二嫂"].kind == "person"  # 斜对门的杨二嫂: described with 的, and a name by her title
    assert "假洋鬼子" in by_variant  # always quoted, never tagged: “假洋鬼子”
    assert not {"明天", "呐喊", "药"} & set(by_variant)  # titles in 《》 that are everyday words
    assert not {"举人老爷", "住在未庄", "回到鲁镇"} & set(by_variant)  # a rank; a verb glued to a place
    # Issue 57 (half of 呐喊's entries were no names): a word only ever quoted on its own is talked about, not used
    # (“行状”, “鸭鸭”, “求食”); a phrase with a particle (关了门); a common noun the dictionary mistags as a person's
    # and the book never names so (尼姑, 布衫, 黑狗); a colour before 的 (乌黑的); a word the tagger made up that
    # starts or ends on an adverb (太静, 前走). Names quoted now and then stay (‘柿油党’).
    assert not {"行状", "鸭鸭", "求食", "关了门", "尼姑", "布衫", "黑狗", "乌黑", "太静", "前走"} & set(by_variant)
    assert {"柿油党", "阿Ｑ", "赵太爷", "小Ｄ", "吴妈", "单四嫂子"} <= set(by_variant)
    # Issue 57, 呐喊's last points: a surname the tagger took for a word before a title (钱/n 太爷, 夏/t 三爷, a man
    # by his rank among brothers), a surname and a given name it cut in two (赵/nr 司晨/nr, 徐/nr 锡林/nz), and a
    # name written right after another's title (赵太爷钱太爷) are people; a word in general use whose only sign of a
    # name is an adverb after it (白光又, 上城了, 籍贯也, 大发见) is no entry: adverbs follow any subject.
    for name in ("钱太爷", "夏三爷", "赵司晨", "徐锡林"):
        assert by_variant[name].kind == "person", name
    assert not {"白光", "上城", "籍贯", "大发"} & set(by_variant)
    # ...and one mostly written with where in it (在荷池里: a thing's inside) is a thing, no place's name; a word
    # that only begins so is no "where in it" (到北京上学, 从上海来)
    assert "荷池" not in by_variant
    # a number the book uses as a man's name (七斤, tagged a numeral: "seven catties"): a name when he speaks
    assert by_variant["七斤"].kind == "person" and "七斤" not in by_variant["七斤嫂"].variants
    assert [xray_module._locative(w) for w in ("里", "上面", "上去", "上学", "上班", "上海")] == [True] * 3 + [
        False
    ] * 3


# Issue 57, Dracula's last misses, each kind in a few lines: a name that opens a telegram's header ("Rufus Smith,
# Lloyd’s, London") lost its first name; a first name alone ("Sam") and a short form after "the" ("the Heath", "the
# Berkeley") were entries of their own; a river only ever gone up was a term, a newspaper written "from The
# Dailygraph" a place, and a man "whose blood is in these veins" a place.
SHORT_FORMS = """# One

Rufus Smith, Lloyd’s, London, to Lord Godalming. Nothing was heard.

Rufus Smith, Lloyd’s, London, to Lord Godalming. The ship had not been seen.

Suddenly Holmes stood up. Suddenly Holmes sat down. Holmes said nothing.

I met Sam Bloxam at the inn, and Sam Bloxam told me all. Then Sam laughed, and Sam said no more.

We walked over Hampstead Heath at night. Hampstead Heath was dark. Children played on the Heath, and the police searched the Heath.

Come to the Berkeley Hotel at ten. The Berkeley Hotel was full. I called at the Berkeley and found him at the Berkeley again.

The little river, the Esk, runs to the sea. Boats go up the Esk, and we sailed up the Esk at dawn.

A cutting from The Dailygraph lay there. Another cutting from The Dailygraph followed.

They claim to be descended from Attila. None was ever so great as Attila, whose blood is in these veins.
"""


def test_full_names_short_forms_and_kinds_by_their_use(quire: Quire) -> None:
    book = quire.import_bytes(SHORT_FORMS.encode(), "short-forms.md").book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = {e.name: e for e in quire.companion.xray(book.id)}
    assert "Rufus Smith" in entries and "Smith" not in entries  # the header's first word is never lowercase here
    assert "Holmes" in entries and "Suddenly Holmes" not in entries  # an adverb opens a sentence, not a name
    assert set(entries["Sam Bloxam"].variants) >= {"Sam Bloxam", "Sam"} and "Sam" not in entries
    assert "Heath" in entries["Hampstead Heath"].variants and "Heath" not in entries
    assert "Berkeley" in entries["Berkeley Hotel"].variants and "Berkeley" not in entries
    kinds = {name: e.kind for name, e in entries.items()}
    assert (kinds["Esk"], kinds["Dailygraph"], kinds["Attila"]) == ("place", "term", "person"), kinds


def test_a_role_is_no_short_form_of_a_phrase_met_once(quire: Quire) -> None:
    """A fairy tale's "the King", met thirty times, became "Princess the King" (from "what a pretty Princess the
    King's daughter was", once): a phrase with "the" inside, given once, is no fuller name. "To Sherlock Holmes"
    once still gives Holmes his full name."""
    text = ("# One\n\nThe King rode out. Then the King spoke, and the King laughed. They told the King. "
            "They talked of the city, and what a pretty Princess the King's daughter was. The King slept.\n\n"
            "To Sherlock Holmes she is the woman. Holmes smiled, and Holmes said so. Holmes left.\n")  # fmt: skip
    book = quire.import_bytes(text.encode(), "tale.md").book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = {e.name: e for e in quire.companion.xray(book.id)}
    assert "King" in entries and "Princess the King" not in entries["King"].variants, entries
    assert "Princess the King" not in entries
    assert "Holmes" in entries["Sherlock Holmes"].variants, entries


def test_a_title_s_capitalised_words_are_no_name_and_a_character_so_called_is(quire: Quire) -> None:
    """A collection's list of books ("Why the Chimes Rang, and Other Stories") gave "Other Stories" as a person:
    words the book writes in lowercase, with nothing a person or a place keeps company with, are a title's. "The
    Happy Prince" is made of words as common, and is a character: the book calls him so and he speaks."""
    text = ("# Books\n\nAlden, Why the Chimes Rang, and Other Stories. Browne, Granny's Chair, and Other Stories. "
            "The other stories were long, and other stories were short. Some stories are other stories.\n\n"
            "# One\n\nThe happy people saw the Happy Prince. \"Swallow,\" said the Happy Prince. "
            "The prince was happy.\n")  # fmt: skip
    book = quire.import_bytes(text.encode(), "lists.md").book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = {e.name: e for e in quire.companion.xray(book.id)}
    assert "Other Stories" not in entries, entries
    assert entries["Happy Prince"].kind == "person", entries


def test_a_first_name_given_a_title_is_no_short_form_of_another(quire: Quire) -> None:
    """The other direction: "Colonel Fitzwilliam" is not "Fitzwilliam Darcy" though the one begins the other."""
    text = ("# One\n\nColonel Fitzwilliam bowed, and Colonel Fitzwilliam smiled. Then Fitzwilliam came in. "
            "Fitzwilliam Darcy rode, and Fitzwilliam Darcy wrote.\n")  # fmt: skip
    book = quire.import_bytes(text.encode(), "cousins.md").book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    entries = {e.name: e for e in quire.companion.xray(book.id)}
    assert "Fitzwilliam Darcy" in entries and "Fitzwilliam" not in entries["Fitzwilliam Darcy"].variants, entries


def test_a_pdfs_chapter_titles_and_written_out_contents_give_no_entries_the_epub_has_none_of(quire: Quire) -> None:
    """Issue 57, found comparing one book's formats (a reader's book as PDF and as EPUB): Alice as PDF had 35 entries
    to the EPUB's 24, eleven of them from its chapter titles ("Pig And Pepper", "Advice From", "Pool Of Tears"), which
    a PDF draws as paragraphs rather than headings, and from the contents written out at its end ("1. Title Page 2.
    Down The Rabbit-Hole 3. The Pool Of Tears…"). The book's own contents say what those paragraphs are; the PDF's
    X-Ray is now the EPUB's, with "Fury" (the Mouse's tale, a picture in the EPUB) beside it."""
    epub, pdf = (names.keys() for names in _names_at_the_end(quire, "en/epubjs-alice.epub", "formats/epubjs-alice.pdf"))
    assert pdf - epub <= {"Fury"}, pdf - epub
    assert epub <= pdf
    assert not {"Pig And Pepper", "Advice From", "Pool Of Tears", "Title Page", "Mad Tea-Party"} & pdf


def test_an_e_texts_own_page_titled_the_project_gutenberg_ebook_gives_no_entries(quire: Quire) -> None:
    """Issue 57, the same comparison: Moby-Dick as FB2 ends with a section titled "The Project Gutenberg EBook of
    Moby-Dick; or The Whale, by Herman Melville" ("Title: Moby-Dick", "Release Date: June, 2001", "Produced by Daniel
    Lazarus"), which gave "Date" and "Moby-Dick" as people and made the character Lazarus "Daniel Lazarus". Such a
    page is around the story, whatever its first word; the FB2's names are now the EPUB's. Their kinds too: the
    Pequod was a place in the EPUB and a person in the FB2, its kind voted by every n-th of 165 and 166 mentions
    (all of them say place); the mentions sampled are now chosen by their own words, so one more moves one."""
    epub, fb2 = _names_at_the_end(quire, "en/idpf-moby-dick.epub", "formats/idpf-moby-dick.fb2")
    assert fb2 == epub, set(fb2.items()) ^ set(epub.items())
    assert not {"Date", "Moby-Dick", "Daniel Lazarus"} & fb2.keys() and "Lazarus" in fb2 and fb2["Pequod"] == "place"


def _names_at_the_end(quire: Quire, *books: str) -> list[dict[str, str]]:
    """Each shared book imported and read to its end: the names of its X-Ray, with their kinds."""
    names = []
    for path in books:
        book = quire.import_paths([book_path(path)])[0].book
        quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
        names.append({e.name: e.kind for e in quire.companion.xray(book.id)})
    return names


def test_a_japanese_book_gets_no_names_taken_for_chinese_and_is_told_why(quire: Quire, capsys) -> None:
    """Issue 57, on the one Japanese book here (Kusamakura, read to its end): its paragraphs went through the Chinese
    tagger, and X-Ray listed 39 entries, most of them words ("小説", novel, and "言葉", words, as people; "雲雀", a
    skylark, as a place). X-Ray reads English and Chinese: a paragraph written with kana is not read for names, and
    the book's X-Ray says so instead of listing nothing or guessing."""
    book = quire.import_paths([book_path("ja/idpf-kusamakura-japanese-vertical-writing.epub")])[0].book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    assert quire.companion.xray(book.id) == [] and not quire.companion.reads_names(book.id)
    chinese = quire.import_paths([book_path("zh/luxun_nahan.txt")])[0].book.id
    assert quire.companion.reads_names(chinese)
    cli(["--library", str(inside(quire).library.root), "xray", str(book.id)])
    assert "does not read Japanese names yet" in capsys.readouterr().out
