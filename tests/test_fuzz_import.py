"""Fuzzed imports in CI: mutated real books (bit flips, cuts, spliced bytes) give a book or one typed, readable
error, never a crash, and a refused file writes nothing. A fixed seed and a time budget keep it repeatable and
short; ``python -m bench.fuzz`` runs the same harness longer."""

from pathlib import Path

import pytest
from conftest import DATA

from bench.fuzz import fuzz, load_sources
from core.library import Library


def test_mutated_books_import_or_are_refused_cleanly(tmp_path: Path) -> None:
    sources = load_sources(DATA / "books")
    if not sources:
        pytest.skip("the shared sample books are not here")
    library = Library(tmp_path / "lib")
    report = fuzz(sources, library, cases=1000, seconds=30.0)
    library.close()
    print(f"fuzz: tried {report.tried}, imported {report.imported}, refused {report.refused}, "
          f"peak RSS {report.peak_rss_mb} MB")  # fmt: skip
    assert report.crashes == [] and report.bad_messages == []
    assert report.tried >= 50 and report.handled == report.tried
