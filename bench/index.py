"""End-to-end indexing of Moby-Dick: time, passages per second, peak RSS, against the bare model.

    python -m bench.index [--json]

The bare model rate (onnxruntime on a sample of the same chunks, in the same run) is the bound;
the target is to get within 10% of it with peak RSS under 500 MB.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from bench.common import MOBY, bare_onnx_rate
from core.services import Quire


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        quire = Quire(Path(folder))
        started = time.perf_counter()
        book = quire.import_paths([MOBY])[0].book
        imported = time.perf_counter() - started
        status = quire.index(book.id)
        total = time.perf_counter() - started
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        sample = [c.text for c in quire.chunks.chunks(book.id)[::8]][:256]
        quire.close()
    bare = bare_onnx_rate(sample)
    rate = status.total / (total - imported)
    result = {
        "chunks": status.total,
        "import_s": round(imported, 2),
        "index_s": round(total - imported, 1),
        "passages_per_s": round(rate, 2),
        "bare_model_per_s": round(bare, 2),
        "ratio": round(rate / bare, 3),
        "peak_rss_mb": round(rss_mb, 1),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"Moby-Dick: {status.total} chunks indexed in {total - imported:.1f} s ({rate:.1f}/s; bare model "
            f"{bare:.1f}/s, ratio {rate / bare:.2f}); import {imported:.2f} s; peak RSS {rss_mb:.0f} MB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
