"""How long an offline answer takes on a long novel: Moby-Dick read to its end, wall clock, against the goal of 1 s.

    python -m bench.answer_time [--hybrid] [--json]

Each of ``QUESTIONS`` is asked through ``Quire.ask`` with no provider (what the app does offline), after one
question asked first to warm the caches as a reader's earlier question would; the row is the median of five runs
of each, and the slowest. ``--hybrid`` indexes the book with the on-device model first (a minute or two here), so
the answer's search is keyword and meaning fused, as for an indexed book.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.common import MOBY
from core import Quire

QUESTIONS = ["Why did Ahab hunt the white whale?", "Who is Queequeg?", "Where does the Pequod sail from?",
             "How did Ahab lose his leg?", "What does Ishmael do when he feels grim about the mouth?"]  # fmt: skip
GOAL = 1.0  # seconds (issue 57)


def measure(hybrid: bool) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        quire = Quire(Path(folder))
        book = quire.import_paths([MOBY])[0].book
        if hybrid:
            quire.index(book.id)
        last = quire.text.segments(book.id, quire.book(book.id).segment_count - 1, 1)[0].locator
        quire.save_position(book.id, last)
        list(quire.ask(book.id, "Who is Starbuck?"))  # the first question loads what every later one shares
        times = []
        for question in QUESTIONS:
            runs = []
            for _ in range(5):
                started = time.perf_counter()
                list(quire.ask(book.id, question))
                runs.append(time.perf_counter() - started)
            times.append(statistics.median(runs))
        quire.close()
    return {"mode": "hybrid" if hybrid else "keyword", "median_s": round(statistics.median(times), 3),
            "slowest_s": round(max(times), 3), "goal_s": GOAL, "met": max(times) < GOAL}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hybrid", action="store_true", help="also index the book and time the hybrid answer")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not MOBY.exists():
        sys.exit(f"bench.answer_time needs the shared books ({MOBY}): lay ../shared beside the clone")
    rows = [measure(False)] + ([measure(True)] if args.hybrid else [])
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        state = "met" if row["met"] else "NOT met"
        print(f"offline answer on Moby-Dick ({row['mode']}): median {row['median_s'] * 1000:.0f} ms, slowest "
              f"{row['slowest_s'] * 1000:.0f} ms (goal under {GOAL:.0f} s: {state})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
