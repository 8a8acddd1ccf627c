"""Fuzzed imports: mutated real books (bit flips, cuts, spliced bytes) give a book or one typed error, never a crash,
and a refused file writes nothing. A fixed seed and a time budget keep it repeatable and short in CI."""

import random
import time
import tracemalloc
from pathlib import Path

import pytest
from conftest import book_path

from core.errors import BookFormatError
from core.library import Library

SEED = 20261130
BUDGET_SECONDS = 30.0
MAX_CASES = 400  # the same cases every run (fixed seed); a slow machine stops at the budget
SOURCES = [  # small real books of every format the importers read
    ("minimal/epubcheck-epub2-minimal.epub", "epub"),
    ("minimal/epubcheck-minimal.epub", "epub"),
    ("malformed/epubjs-alice_without_cover.epub", "epub"),
    ("en/idpf-childrens-literature.epub", "epub"),
    ("zh/luxun_nahan.txt", "txt"),
]


def _mutate(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    buffer = bytearray(data)
    how = rng.choice(["flip", "flip", "flips", "cut", "splice", "zero"])
    if how == "flip":
        buffer[rng.randrange(len(buffer))] ^= 1 << rng.randrange(8)
    elif how == "flips":
        for _ in range(rng.randint(2, 20)):
            buffer[rng.randrange(len(buffer))] = rng.randrange(256)
    elif how == "cut":
        del buffer[rng.randrange(len(buffer)) :]
    elif how == "splice":
        at = rng.randrange(len(buffer))
        buffer[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    else:
        at = rng.randrange(len(buffer))
        buffer[at : at + rng.randint(1, 512)] = bytes(min(512, len(buffer) - at))
    return how, bytes(buffer)


def test_mutated_books_import_or_are_refused_cleanly(tmp_path: Path) -> None:
    sources = []
    for name, suffix in SOURCES:
        try:
            sources.append((book_path(name).read_bytes(), suffix))
        except pytest.skip.Exception:
            continue
    if not sources:
        pytest.skip("the shared sample books are not here")
    rng = random.Random(SEED)
    library = Library(tmp_path / "lib")
    tried = imported = refused = 0
    peak = 0
    deadline = time.monotonic() + BUDGET_SECONDS
    while tried < MAX_CASES and time.monotonic() < deadline:
        data, suffix = rng.choice(sources)
        how, mutated = _mutate(data, rng)
        books_before = library.conn.execute("SELECT COUNT(*) FROM books").fetchone()[0]
        tracemalloc.start()
        try:
            library.import_bytes(mutated, f"fuzz-{tried}.{suffix}")
            imported += 1
        except BookFormatError as error:
            refused += 1
            message = str(error)
            assert len(message) <= 240 and message.isprintable(), (how, message)
            assert "object has no attribute" not in message and "Error -3" not in message, message
            assert library.conn.execute("SELECT COUNT(*) FROM books").fetchone()[0] == books_before
        finally:
            peak = max(peak, tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
        tried += 1
    library.close()
    print(f"fuzz: tried {tried}, imported {imported}, refused {refused}, peak {peak / 1e6:.1f} MB (traced)")
    assert tried >= 50 and imported + refused == tried
