"""One device receiving highlights through a sync folder, timed in a process that loads what ``quire sync`` loads.

    python -m bench.sync_receive --book ../shared/data/books/en/idpf-moby-dick.epub --highlights 10000 [--folder DIR]

A writer library makes ``--highlights`` highlights of the book and syncs them out; a reader library with the same
book syncs them in (process CPU), beside the bare work: reading the log files' lines as JSON and inserting them into
a table in one transaction, each the median of three rounds (``--rounds``), a fresh reader library each. Prints
JSON: ``receive`` and ``bare`` seconds, and the modules loaded. ``bench.scale``
runs it as its own process: its own imports (the agent, LangChain and the Anthropic client: 5,000 modules) would
otherwise make each of Python's full garbage collections during the sync several times longer than on a device.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from core import Quire


def receive(book: Path, highlights: int, folder: Path, rounds: int = 3) -> dict[str, float | int]:
    """Medians over ``rounds``: each a fresh reader library receiving from its own copy of the sync folder, then
    the bare work on the same files after it (interleaved, so that other work on the machine falls on both alike)."""
    shared = folder / "shared"
    shared.mkdir(parents=True)
    writer = Quire(folder / "writer")
    writer.import_paths([book])
    writer.sync.setup(str(shared))
    segments = [s for s in writer.text.segments(1, 0, 3000) if s.text.strip()]
    for n in range(highlights):
        writer.notes.add_highlight(1, str(segments[n % len(segments)].locator), None, "yellow", f"note {n}")
    writer.sync.run()
    writer.close()
    took, bare = [], []
    for round_ in range(rounds):
        copy = folder / f"shared-{round_}"
        shutil.copytree(shared, copy)
        reader = Quire(folder / f"reader-{round_}")
        reader.import_paths([book])
        reader.sync.setup(str(copy))
        started = time.process_time()
        reader.sync.run()
        took.append(time.process_time() - started)
        assert len(reader.notes.highlights(1)) == highlights
        reader.close()
        started = time.process_time()
        conn = sqlite3.connect(folder / f"bare-{round_}.db")
        conn.execute("CREATE TABLE records (line TEXT)")
        lines = [json.dumps(json.loads(line)) for path in (copy / "log").glob("*.jsonl")
                 for line in path.read_text(encoding="utf-8").splitlines()]  # fmt: skip
        with conn:
            conn.executemany("INSERT INTO records VALUES (?)", [(line,) for line in lines])
        conn.close()
        bare.append(time.process_time() - started)
    return {"receive": statistics.median(took), "bare": statistics.median(bare), "rounds": rounds,
            "modules": len(sys.modules)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--book", type=Path, required=True)
    parser.add_argument("--highlights", type=int, default=10_000)
    parser.add_argument("--folder", type=Path, help="where the libraries go (default: a temporary folder)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.folder is not None:
        print(json.dumps(receive(args.book, args.highlights, args.folder, args.rounds)))
        return 0
    with tempfile.TemporaryDirectory() as folder:
        print(json.dumps(receive(args.book, args.highlights, Path(folder), args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
