"""Fuzzed imports in CI: mutated real books (bit flips, cuts, spliced bytes) give a book or one typed, readable
error, never a crash, and a refused file writes nothing. A fixed seed and a fixed number of cases keep it
repeatable, on a fast machine or a loaded one; ``python -m bench.fuzz`` runs the same harness longer."""

from pathlib import Path

import pytest
from conftest import DATA

from bench.fuzz import fuzz, load_sources
from core.library import Library

CASES = 80  # about 15 s here (2 cores); each case is a whole import


def test_mutated_books_import_or_are_refused_cleanly(tmp_path: Path) -> None:
    sources = load_sources(DATA / "books")
    if not sources:
        pytest.skip("the shared sample books are not here")
    library = Library(tmp_path / "lib")
    report = fuzz(sources, library, cases=CASES, seconds=float("inf"))  # no time budget: a slow machine waits
    library.close()
    print(f"fuzz: tried {report.tried}, imported {report.imported}, refused {report.refused}, "
          f"peak RSS {report.peak_rss_mb} MB")  # fmt: skip
    assert report.crashes == [] and report.bad_messages == []
    assert report.tried == CASES and report.handled == report.tried
