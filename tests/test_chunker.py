"""Chunking: whole segments and sentences, sizes in the model's own tokens, exact coverage."""

import itertools
import random
import re

import pytest
from conftest import book_path

from core.books import parse_book
from core.rag.chunker import SegmentText, approximate_token_count, chunk_segments, sentence_spans
from core.rag.models import CATALOG, ModelStore, token_counter


@pytest.fixture(scope="module")
def count(tmp_path_factory: pytest.TempPathFactory):
    found = token_counter(CATALOG["all-MiniLM-L6-v2"], ModelStore(tmp_path_factory.mktemp("models")))
    assert found is not None, "tokenizers and the vendored MiniLM tokenizer are part of the install"
    return found[1]


def _segments(name: str) -> list[SegmentText]:
    book = parse_book(book_path(name).read_bytes(), name)
    return [SegmentText(o, loc.section, seg.text) for o, loc, _, seg in book.segments_with_locators()]


def _check_coverage(segments: list[SegmentText], chunks) -> None:
    texts = {s.ordinal: s.text for s in segments}
    for chunk in chunks:
        pieces = []
        for ordinal in range(chunk.start_ordinal, chunk.end_ordinal + 1):
            text = texts[ordinal]
            start = chunk.start_offset if ordinal == chunk.start_ordinal else 0
            end = chunk.end_offset if ordinal == chunk.end_ordinal else len(text)
            if text[start:end].strip():
                pieces.append(text[start:end].strip())
        assert chunk.text == "\n".join(pieces)
        assert {s.section for s in segments if chunk.start_ordinal <= s.ordinal <= chunk.end_ordinal} == {chunk.section}
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.start_ordinal, chunk.end_ordinal + 1))
    assert covered == {s.ordinal for s in segments if s.text.strip()}


def test_moby_dick_chunks_fit_the_model_and_cover_the_book(count) -> None:
    segments = _segments("en/idpf-moby-dick.epub")
    chunks = chunk_segments(segments, count, target_tokens=192, overlap=0.2)
    assert 1000 < len(chunks) < 3000
    real = count([c.text for c in chunks])
    assert max(real) <= 254  # within all-MiniLM-L6-v2's 256 tokens, counting [CLS] and [SEP]
    assert sum(r > 192 + 8 for r in real) == 0
    _check_coverage(segments, chunks)
    shared = sum(
        1 for a, b in itertools.pairwise(chunks) if a.section == b.section and b.start_ordinal <= a.end_ordinal
    )
    assert shared > len(chunks) * 0.5  # neighbouring chunks overlap


def _check_starts(segments: list[SegmentText], chunks, count, budget: int) -> None:
    """A chunk starts at a sentence start, unless that sentence alone is over the budget; never mid-word."""
    texts = {s.ordinal: s.text for s in segments}
    for chunk in chunks:
        if not chunk.start_offset:
            continue
        text = texts[chunk.start_ordinal]
        assert not (
            text[chunk.start_offset - 1].isalnum()
            and text[chunk.start_offset].isascii()
            and text[chunk.start_offset].isalnum()
        )
        sentence = next((a, b) for a, b in sentence_spans(text) if a <= chunk.start_offset < b)
        if count([text[sentence[0] : sentence[1]]])[0] <= budget:
            assert chunk.start_offset == sentence[0], text[chunk.start_offset - 30 : chunk.start_offset + 10]
        else:  # cut inside a long sentence: preferably after a comma or colon
            assert (
                re.search(r"[,;:，、：；—]['\"”’)\]]*\s*$|\s$", text[: chunk.start_offset])
                or not text[chunk.start_offset - 1].isascii()
            )


def test_chunks_start_at_sentence_starts(count) -> None:
    segments = _segments("en/idpf-moby-dick.epub")
    _check_starts(segments, chunk_segments(segments, count, 64, 0.2), count, 64)


def test_chinese_chunks_split_at_chinese_sentence_ends(count) -> None:
    segments = _segments("zh/hongloumeng_120.md")[:400]
    chunks = chunk_segments(segments, count, 96, 0.2)
    _check_coverage(segments, chunks)
    assert max(count([c.text for c in chunks])) <= 96 + 8
    _check_starts(segments, chunks, count, 96)


def test_a_sentence_longer_than_the_budget_is_cut_between_words(count) -> None:
    words = " ".join(f"word{i}" for i in range(400))
    chunks = chunk_segments([SegmentText(0, 0, words)], count, 50, 0.0)
    assert len(chunks) > 5
    for chunk in chunks:
        assert re.fullmatch(r"(word\d+ ?)+", chunk.text), chunk.text[:40]
        assert count([chunk.text])[0] <= 50 + 4
    assert " ".join(c.text for c in chunks).split() == words.split()


def test_overlap_carries_about_a_fifth_of_the_target(count) -> None:
    sentences = [SegmentText(i, 0, f"This is sentence number {i} of the test.") for i in range(60)]
    chunks = chunk_segments(sentences, count, 100, 0.2)
    for a, b in itertools.pairwise(chunks):
        overlap = a.end_ordinal - b.start_ordinal + 1
        assert overlap >= 1
        carried = sum(count([s.text for s in sentences[b.start_ordinal : a.end_ordinal + 1]]))
        assert carried <= 20  # 20% of the 100-token target


def test_sentence_spans_cover_text() -> None:
    text = "He said: “Hi.” Then left! 然后他走了。还回来吗？No"
    spans = sentence_spans(text)
    assert "".join(text[a:b] for a, b in spans) == text
    assert [text[a:b].strip() for a, b in spans] == ["He said: “Hi.”", "Then left!", "然后他走了。", "还回来吗？", "No"]


def test_approximate_counter_for_devices_without_tokenizers() -> None:
    assert approximate_token_count(["红楼梦", "Call me Ishmael.", ""]) == [3, 4, 0]


def test_abbreviations_and_initials_do_not_end_a_sentence() -> None:
    """A quote cut at "…I think you know Mr" was seen in a citation (issue 25, item 7)."""
    from core.rag import sentences

    text = ('"I think you know Mr. Sherlock Holmes," said Dr. Watson. J. H. Watson of St. Paul\'s wrote it. '
            "Then said I. Mrs. Hudson came.\nMr.\nEnd.")  # fmt: skip
    want = ['"I think you know Mr. Sherlock Holmes," said Dr. Watson.', "J. H. Watson of St. Paul's wrote it.",
            "Then said I.", "Mrs. Hudson came.", "Mr.", "End."]  # fmt: skip
    assert [text[a:b] for a, b in sentences.sentence_spans(text)] == want
    assert [text[a:b].strip() for a, b in sentence_spans(text)] == want  # the chunker cuts at the same places


@pytest.fixture(scope="module")
def tokenizer_count(tmp_path_factory: pytest.TempPathFactory):
    """The tokenizer's own count of each text, tokenized whole: the oracle for the counter's shortcuts."""
    from tokenizers import Tokenizer

    spec = CATALOG["all-MiniLM-L6-v2"]
    tokenizer = Tokenizer.from_file(str(ModelStore(tmp_path_factory.mktemp("oracle")).paths(spec)[1]))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return lambda texts: [len(e.ids) for e in tokenizer.encode_batch(texts, add_special_tokens=False)]


@pytest.mark.parametrize(
    "name",
    [
        "en/idpf-moby-dick.epub",
        "en/epubjs-alice.epub",
        "zh/luxun_nahan.txt",
        "ja/idpf-kusamakura-japanese-vertical-writing.epub",
    ],
)
def test_counting_by_words_and_characters_gives_the_tokenizers_own_counts(count, tokenizer_count, name) -> None:
    """Paragraphs and their sentences, counted by the shortcuts (a word's count kept, a Han character or a mark
    one token) where they apply and by the tokenizer where not, count as the tokenizer counts each whole."""
    texts = []
    for segment in _segments(name):
        texts += [segment.text, *(segment.text[a:b] for a, b in sentence_spans(segment.text))]
    assert count(texts) == tokenizer_count(texts)


ODD = [
    "a\x0cb",
    "naïve café",
    "x_y-z",
    "don’t—stop…",
    "ﬁne",
    "Ⅻ",
    "word" * 40,
    "A1b2C3 ¿qué? ¡sí!",
    "tab\there\r\nnew",
    "\u00a0nbsp",
    "½ £5 €",
    "emoji 😀",
    "İstanbul",
    "Straße",
    "Καλημέρα;",
    "ab\x00cd",
    "under_score",
    "『呐喊』。",
    "ＡＢＣ１２",
    "co\u0301te",
    "a\u200bb",
    "ok",
    "",
]


def test_odd_characters_count_as_the_tokenizer_counts_them(count, tokenizer_count) -> None:
    """Characters the normalizer drops, folds or splits (control characters, accents, full-width forms, ligatures,
    zero-width spaces) go to the tokenizer; the counts agree, alone and inside a text of plain words."""
    texts = ODD + [f"The whale {odd} swam, and then {odd}." for odd in ODD]
    assert count(texts) == tokenizer_count(texts)
    assert count(texts) == tokenizer_count(texts)  # again, with every word's count kept from the first time


def test_counting_from_several_threads_with_a_small_word_cache_gives_the_same_counts(
    tokenizer_count, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """The indexer and the worker behind an opened book may count at once; the kept words' counts are dropped when
    there are too many: neither gives a wrong count (a word dropped by one thread while another sums)."""
    from concurrent.futures import ThreadPoolExecutor

    from core.rag import models

    monkeypatch.setattr(models, "WORD_CACHE", 40)
    found = token_counter(CATALOG["all-MiniLM-L6-v2"], ModelStore(tmp_path))  # a counter of its own
    assert found is not None
    count = found[1]
    texts = [segment.text for segment in _segments("en/epubjs-alice.epub")][:400]
    slices = [texts[n::4] for n in range(4)]
    with ThreadPoolExecutor(4) as pool:
        counted = list(pool.map(count, slices * 3))
    assert counted == [tokenizer_count(part) for part in slices] * 3


def test_a_sentences_end_is_found_as_the_regular_expression_finds_it() -> None:
    """The quick answer (no closing mark at the end: not a sentence's end) agrees with the regular expression on
    every short tail made of closing marks, spaces, letters, abbreviations and Chinese punctuation."""
    from core.books.textutil import abbreviation_stop
    from core.rag.chunker import _SENTENCE_TAIL, _ends_sentence

    def by_expression(text: str) -> bool:
        tail = _SENTENCE_TAIL.search(text)
        return not text or (tail is not None and ("\n" in tail.group() or not abbreviation_stop(text, tail.start())))

    marks = list(".!?\"'”’)]。！？；…」』）\n \t\u3000\u00a0abcMr人,，")
    rng = random.Random(7)
    tails = ["".join(rng.choice(marks) for _ in range(rng.randrange(0, 9))) for _ in range(20_000)]
    tails += ["Mr. ", "said Dr. ", "end.\n", "他说。", "“好！”", "word", "", " "]
    assert [_ends_sentence(tail) for tail in tails] == [by_expression(tail) for tail in tails]
    assert sum(_ends_sentence(tail) for tail in tails) > 1000  # both answers are common among the tails
