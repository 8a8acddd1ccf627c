"""Helpers shared by the benchmarks: percentiles, a bare onnxruntime baseline, the Moby-Dick library."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from core import Quire
from core.inside import ModelStore

MOBY = Path("../shared/data/books/en/idpf-moby-dick.epub")


def rss_mb(pid: int | str = "self") -> float:
    """A process's resident memory now, in MB (Linux's /proc; NaN where there is none)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return float("nan")
    return next((int(line.split()[1]) / 1024 for line in lines if line.startswith("VmRSS:")), float("nan"))


def cpu_seconds(action: Callable[[], object], repeat: int = 5) -> float:
    """The median process CPU seconds of ``action`` over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        started = time.process_time()
        action()
        times.append(time.process_time() - started)
    return statistics.median(times)


def paired_seconds(
    action: Callable[[], object],
    baseline: Callable[[], object],
    *,
    calls: int = 1,
    repeat: int = 7,
    clock: Callable[[], float] = time.process_time,
) -> tuple[float, float]:
    """Seconds per call of ``action`` and of its ``baseline``, timed in turns (each first every other time), so
    that a burst of other work on the machine falls on both alike: the median of ``repeat`` samples each, a
    sample timing ``calls`` calls. Timed one after the other instead, a row of bench.scale read 1.8x in one run
    and 2.4x in the next on an idle machine."""
    times: tuple[list[float], list[float]] = ([], [])
    for round_ in range(repeat):
        for which in (0, 1) if round_ % 2 == 0 else (1, 0):
            run = (action, baseline)[which]
            started = clock()
            for _ in range(calls):
                run()
            times[which].append((clock() - started) / calls)
    return statistics.median(times[0]), statistics.median(times[1])


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q * 100)) if values else float("nan")


def bare_onnx_rate(texts: list[str], batch_size: int = 1) -> float:
    """Passages per second of the bare model: tokenizer + session.run, in the given order, no extras.

    Use the embedder's own batch size, so that the comparison measures only our pipeline's overhead.
    """
    import onnxruntime
    from tokenizers import Tokenizer

    store = ModelStore(Path("/nonexistent"))
    model, tokenizer_path = store.paths(store.spec("all-MiniLM-L6-v2"))
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.enable_truncation(256)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 2
    session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    started = time.perf_counter()
    for start in range(0, len(texts), batch_size):
        encodings = tokenizer.encode_batch(texts[start : start + batch_size])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
    return len(texts) / (time.perf_counter() - started)


def moby_chunks(folder: Path) -> list[str]:
    """The chunk texts Quire makes of Moby-Dick."""
    quire = Quire(folder)
    book = quire.import_paths([MOBY])[0].book
    texts = quire.text.passage_texts(book.id)
    quire.close()
    return texts
