"""Quotes cut from a book keep their quotation marks balanced and never doubled (issue 38), English and Chinese."""

import re

import pytest
from conftest import book_path
from hypothesis import given, strategies as st

from core import quoted
from core.companion.recap import recap_events
from core.quotes import balanced
from core.rag.sentences import sentence_spans
from core.services import Quire

DOUBLED = re.compile(r"““|””|“‘“|”’”")


def _even(text: str) -> bool:
    """Every opening double mark and corner bracket has its closing one, in order."""
    depth = {"“": 0, "「": 0, "『": 0}
    close = {"”": "“", "」": "「", "』": "『"}
    for char in text:
        if char in depth:
            depth[char] += 1
        elif char in close:
            depth[close[char]] -= 1
            if depth[close[char]] < 0:
                return False
    return not any(depth.values())


@pytest.mark.parametrize(
    ("cut", "shown"),
    [
        # the recap lines (a story collection at its first story's part I)
        ("“But you can understand,” said our strange visitor, sitting down once more",
         "“‘But you can understand,’ said our strange visitor, sitting down once more”"),
        ("and may have an influence upon European history.”", "“and may have an influence upon European history.”"),
        ("“Where shall I put up?” he said.", "“‘Where shall I put up?’ he said.”"),
        ("“Where shall I put up?”", "“Where shall I put up?”"),  # one whole utterance: no second pair
        ("I will go when I have said my say", "“I will go when I have said my say”"),
        ('"Hi," he said, "go home', "“‘Hi,’ he said, ‘go home’”"),  # straight marks, cut inside the second
        ("“哦哦，你是范爱农！”", "“哦哦，你是范爱农！”"),
        ("他便说道：“你来了", "“他便说道：‘你来了’”"),
        ("你来了。”他说着便走了。", "“‘你来了。’他说着便走了。”"),
        ("「きみは」と言った", "“「きみは」と言った”"),
    ],
)  # fmt: skip
def test_a_cut_quote_is_balanced_and_nested_not_doubled(cut: str, shown: str) -> None:
    assert quoted(cut) == shown


def _slips(text: str) -> bool:
    """Whether the text's own marks slip: a closing mark with none open, after an opening one was seen."""
    depth, opened = 0, False
    for char in text:
        if char in "“「『":
            depth, opened = depth + 1, True
        elif char in "”」』":
            if depth == 0 and opened:
                return True
            depth = max(0, depth - 1)
    return False


_UTTERANCE = st.tuples(st.sampled_from(["“", "「"]), st.text(alphabet="ab ，。", max_size=6)).map(
    lambda pair: pair[0] + pair[1] + {"“": "”", "「": "」"}[pair[0]]
)


@given(st.lists(st.one_of(_UTTERANCE, st.text(alphabet="ab ,.，", max_size=6)), max_size=6), st.data())
def test_any_cut_of_dialogue_comes_out_balanced(pieces: list[str], data: st.DataObject) -> None:
    """A sentence cut anywhere out of well-formed dialogue: balanced, and quoted without a doubled pair."""
    text = "".join(pieces)
    start = data.draw(st.integers(0, len(text)))
    cut = text[start : data.draw(st.integers(start, len(text)))]
    assert _even(balanced(cut)) and balanced(balanced(cut)) == balanced(cut)
    shown = quoted(cut)
    assert _even(shown) and shown[0] in "“「" and not DOUBLED.search(shown)


@given(st.text(alphabet='ab “”"「」，。', max_size=30))
def test_balancing_any_text_twice_changes_nothing_more(text: str) -> None:
    assert balanced(balanced(text)) == balanced(text)


@pytest.mark.parametrize("name", ["en/idpf-moby-dick.epub", "zh/hongloumeng_120.md"])
def test_every_sentence_of_a_book_quoted_alone_is_balanced(quire: Quire, name: str) -> None:
    """Each sentence of a whole novel, as the offline answer, the recap and X-Ray cut them."""
    book = quire.import_paths([book_path(name)])[0].book
    shown = 0
    for segment in quire.text.segments(book.id, 0, book.segment_count):
        for start, end in sentence_spans(segment.text):
            quote = quoted(segment.text[start:end])
            assert _even(quote) or _slips(segment.text[start:end]), quote
            assert not DOUBLED.search(quote), quote
            shown += 1
    assert shown > 5_000


def test_the_recap_and_the_export_show_dialogue_balanced(quire: Quire) -> None:
    """Alice's dialogue is in straight marks: the recap's quotes show them as curly ones, paired."""
    book = quire.import_paths([book_path("en/epubjs-alice.epub")])[0].book
    quire.save_position(book.id, quire.text.segments(book.id, book.segment_count - 1, 1)[0].locator)
    chapters = quire.companion.recap(book.id)
    assert any(q.quote[:1] == '"' or q.quote[-1:] == '"' for c in chapters for q in c.quotes)  # cut from dialogue
    text = "".join(getattr(event, "text", "") for event in recap_events(chapters))
    assert '"' not in text and _even(text) and not DOUBLED.search(text)
    segment = next(s for s in quire.text.segments(book.id, 0, book.segment_count) if s.text.startswith('"'))
    cut = segment.text.index('"', 1) + 1  # the reader highlights from inside a line of dialogue to its end
    quire.notes.add_highlight(book.id, str(segment.locator.at(1)), str(segment.locator.at(cut)))
    assert f'> "{segment.text[1:cut]}' in quire.notes.export(book.id)  # its opening mark put back
