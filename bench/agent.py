"""Agent framework overhead per model turn: a scripted model (no sleeps, no network), real tools.

    python -m bench.agent [--runs 20] [--json]

Each run is three model turns (a search, a citation, the answer) on Alice in Wonderland. The time of
the tool bodies is measured separately and subtracted, so what remains is LangChain/LangGraph, our
middleware and event mapping. Target: under 50 ms per turn.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from core import Quire
from core.inside import ReadingAgent, ReadingSession

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fakechat import ScriptedChatModel

ALICE = Path("../shared/data/books/en/epubjs-alice.epub")
TURNS = [
    [("reasoning", "Search."), ("tool", "keyword_search", '{"query": "Cheshire cat grins"}', "c1")],
    [("tool", "cite", '{"passage": 1, "quote": "grins like that"}', "c2")],
    [("text", "It is a Cheshire cat, and that is why it grins [1].")],
]


class TimedSession(ReadingSession):
    """Adds up the time spent inside tool bodies."""

    tool_seconds = 0.0

    def keyword_search(self, query: str, k: int = 6) -> str:
        """Search the open book by its words. Returns numbered passages."""
        started = time.perf_counter()
        try:
            return super().keyword_search(query, k)
        finally:
            TimedSession.tool_seconds += time.perf_counter() - started

    def cite(self, passage: int, quote: str) -> str:
        """Cite exact words from a numbered passage."""
        started = time.perf_counter()
        try:
            return super().cite(passage, quote)
        finally:
            TimedSession.tool_seconds += time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        quire = Quire(Path(folder))
        quire.import_paths([ALICE])
        per_turn = []
        for run in range(args.runs + 2):
            session = TimedSession(quire, 1, spoilers_allowed=True)
            TimedSession.tool_seconds = 0.0
            model = ScriptedChatModel(turns=[list(t) for t in TURNS])
            started = time.perf_counter()
            events = list(ReadingAgent(session, model).stream("Why does the cat grin?"))
            elapsed = time.perf_counter() - started - TimedSession.tool_seconds
            assert events[-1].kind == "done"
            if run >= 2:  # the first runs warm up imports and caches
                per_turn.append(elapsed / len(TURNS) * 1000)
        quire.close()
    result = {
        "runs": args.runs,
        "turns_per_run": len(TURNS),
        "overhead_ms_per_turn_p50": round(statistics.median(per_turn), 2),
        "overhead_ms_per_turn_max": round(max(per_turn), 2),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"agent overhead per turn: p50 {result['overhead_ms_per_turn_p50']} ms, max {result['overhead_ms_per_turn_max']} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
