"""Locators: text round trip, ordering, and clear errors."""

import pytest

from core.books import Locator, format_locator, parse_locator
from core.errors import LocatorError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.0", Locator(0, 0)),
        ("12.34", Locator(12, 34)),
        ("12.34:56", Locator(12, 34, 56)),
        (" 3.1:0 ", Locator(3, 1, 0)),
    ],
)
def test_parse_and_format_round_trip(text: str, expected: Locator) -> None:
    assert parse_locator(text) == expected
    assert parse_locator(format_locator(expected)) == expected
    assert str(expected) == text.strip()


@pytest.mark.parametrize("bad", ["", "12", "a.b", "1.2.3", "1.-2", "1.2:", "1.2:x", "-1.0"])
def test_malformed_locators_raise_with_an_example(bad: str) -> None:
    with pytest.raises(LocatorError, match=r"e\.g\. 3\.12"):
        parse_locator(bad)


def test_locators_sort_in_reading_order() -> None:
    texts = ["10.0", "2.5:9", "2.5", "2.10", "2.5:3", "0.99"]
    ordered = [str(loc) for loc in sorted(parse_locator(t) for t in texts)]
    assert ordered == ["0.99", "2.5", "2.5:3", "2.5:9", "2.10", "10.0"]


def test_negative_parts_are_refused() -> None:
    with pytest.raises(LocatorError):
        Locator(-1, 0)


def test_offset_helpers() -> None:
    loc = Locator(4, 7)
    assert loc.at(12) == Locator(4, 7, 12)
    assert loc.at(12).segment_locator == loc
