"""The spoiler fence, held at zero by bench.spoilers on a small scale: an English and a Chinese book, two places,
every path that returns book text. The same run with the fence off must find leaks on every path (the check of
the check)."""

from pathlib import Path

import pytest
from conftest import book_path

from bench import spoilers

pytestmark = pytest.mark.storage  # stores through SQLite: CI runs it again on the phones' backend (apsw)


@pytest.fixture(scope="module")
def books(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("books")
    for name in ("en/epubjs-alice.epub", "zh/luxun_nahan.txt"):
        (folder / Path(name).name).write_bytes(book_path(name).read_bytes())
    return folder


def test_nothing_past_the_furthest_place_reaches_the_model_or_the_screen(books: Path) -> None:
    report = spoilers.run(books, [0.15, 0.5], probes=3)
    assert report["books"] == ["epubjs-alice.epub", "luxun_nahan.txt"] and report["probes_asked"] >= 10
    for name, result in report["paths"].items():
        assert result["checks"] > 0, name
        assert result["leaks"] == 0, (name, result["examples"])


def test_with_the_fence_off_every_path_is_seen_to_leak(books: Path) -> None:
    report = spoilers.run(books, [0.15], probes=3, fenced=False)
    for name, result in report["paths"].items():
        assert result["leaks"] > 0, f"the benchmark cannot see a leak on {name}"
