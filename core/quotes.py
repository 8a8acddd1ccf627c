"""Text cut from a book shown as a quote: its own quotation marks balanced, the outer ones never doubled.

A sentence cut out of dialogue often carries one mark of a pair: “But you can understand,” said our strange
visitor… opens and closes, but …of European history.” only closes. Shown as is inside the quote's own marks it read
“““But you…” or “…history.””” (issue 38). Here the missing half is put back where the cut was, and the quote's own
double marks become single ones inside the outer pair (“‘But you can understand,’ said our strange visitor…”), as
typesetters nest quotes; a quote that is one whole utterance keeps its marks and gets no second pair. Chinese and
Japanese corner brackets (「」『』) are balanced the same way. Single curly marks are left alone: ’ is also the
apostrophe, so a count of them says nothing.
"""

from __future__ import annotations

_CLOSING = {"“": "”", "「": "」", "『": "』"}
_OPENING = {close: open_ for open_, close in _CLOSING.items()}
_NESTED = {"“": "‘", "”": "’"}  # inside an outer pair of double marks
_STRAIGHT = '"'
_BEFORE_OPENING = " \t\n([{—–-/“「『"  # a straight mark after one of these (or at the start) opens


def balanced(text: str) -> str:
    """``text`` with the mark each unpaired quotation mark lacks put back at the cut: an opening one at the
    start for a closing mark with none before it, a closing one at the end for an opening mark left open.

    A closing mark with none open after the text has opened one is a slip of the book's own (红楼梦's text has
    “”一面哭着…忙赶上来，”好妹妹…”): it is left as it is, since no cut explains it.
    """
    missing_open: list[str] = []  # closing marks with no opening one before them: the cut was inside a quote
    still_open: list[str] = []
    opened = False  # after an opening mark, a closing one with none open is the book's own slip, left as it is
    for index, char in enumerate(text):
        after_space = index == 0 or text[index - 1] in _BEFORE_OPENING
        if char == _STRAIGHT:
            if still_open and (still_open[-1] == _STRAIGHT or (still_open[-1] == "“" and not after_space)):
                still_open.pop()  # a straight mark closes a curly one in books that mix them (Moby-Dick does)
            elif after_space:
                still_open.append(char)
                opened = True
            elif not opened and char not in missing_open:
                missing_open.append(char)
        elif char in _CLOSING:
            still_open.append(char)
            opened = True
        elif char in _OPENING:
            if still_open and still_open[-1] == _OPENING[char]:
                still_open.pop()
            elif _OPENING[char] in still_open:  # a mark left open inside: close it too
                while still_open and still_open[-1] != _OPENING[char]:
                    still_open.pop()
                still_open.pop()
            elif not opened and char not in missing_open:  # a cut opens one quote at most: a second is a slip
                missing_open.append(char)
    head = "".join(_OPENING.get(mark, mark) for mark in reversed(missing_open))
    tail = "".join(_CLOSING.get(mark, mark) for mark in reversed(still_open))
    return head + text + tail


def quoted(text: str) -> str:
    """``text`` (spaces folded) as a quote: balanced, in “ ” with its own double marks nested as ‘ ’, or as it
    is when it is one whole quoted utterance already."""
    inner = balanced(_trimmed(" ".join(text.split())))
    if _one_utterance(inner):
        if inner[0] in "「『":
            return inner
        inner = inner[1:-1]  # its own pair becomes the outer one; marks inside it are nested
    nested = []
    for index, char in enumerate(inner):
        if char == _STRAIGHT:
            opens = index == 0 or inner[index - 1] in _BEFORE_OPENING
            nested.append("‘" if opens else "’")
        else:
            nested.append(_NESTED.get(char, char))
    return "“" + "".join(nested) + "”"


def _trimmed(text: str) -> str:
    """Without a closing mark it starts with or an opening mark it ends with: those belong to the sentence before
    or after (a cut at 。” left the mark to the next sentence: ”一面哭着…), and quote nothing."""
    start, end = 0, len(text)
    while start < end and text[start] in _OPENING:
        start += 1
    while end > start and text[end - 1] in _CLOSING:
        end -= 1
    return text[start:end].strip()


def _one_utterance(text: str) -> bool:
    """Whether ``text`` is one quoted span from its first character to its last (“Who are you?” he said: no)."""
    if len(text) < 2 or text[0] not in (*_CLOSING, _STRAIGHT):
        return False
    close = _CLOSING.get(text[0], _STRAIGHT)
    depth = 0
    for index, char in enumerate(text):
        if char == text[0] and (char != _STRAIGHT or index == 0):
            depth += 1
        elif char == close:
            depth -= 1
            if depth == 0:
                return index == len(text) - 1
    return False
