"""End-to-end indexing of Moby-Dick: time, passages per second, memory, against the bare model.

    python -m bench.index [--json]

The bare model rate (onnxruntime on a sample of the same chunks, in the same run) is the bound;
the target is to get within 10% of it. Memory: peak RSS while indexing, RSS once indexing is done with the
model still loaded, and RSS after ``quire.models.release`` (what the app does when its last index job ends);
the phone-class target (issue 10) is under 300 MB after indexing.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from bench.common import MOBY, bare_onnx_rate, rss_mb
from core import Quire


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
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        loaded_mb = rss_mb()
        quire.models.release()
        released_mb = rss_mb()
        sample = quire.text.passage_texts(book.id)[::8][:256]
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
        "peak_rss_mb": round(peak_mb, 1),
        "rss_after_index_mb": round(loaded_mb, 1),
        "rss_after_release_mb": round(released_mb, 1),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"Moby-Dick: {status.total} chunks indexed in {total - imported:.1f} s ({rate:.1f}/s; bare model "
            f"{bare:.1f}/s, ratio {rate / bare:.2f}); import {imported:.2f} s; RSS peak {peak_mb:.0f} MB, after indexing {loaded_mb:.0f} MB, after releasing "
            f"the model {released_mb:.0f} MB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
