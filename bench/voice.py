"""The natural offline voice's speed: its real-time factor and the first audio after pressing play, beside eSpeak NG.

    python -m bench.voice [--book ../shared/data/books/en/idpf-moby-dick.epub] [--sentences 20] [--json]

The sentences are the book's first ones read aloud from its first chapter (as read-aloud splits them). Real-time
factor: seconds of speech made per second of CPU (the process's for the natural voice, onnxruntime's threads
included; eSpeak NG's child processes' for it), and per second of wall-clock time. First audio: from pressing
play to the first sentence's samples, with the model still to load (the first time in a session: the cold row)
and loaded. eSpeak NG writes the same sentences into WAV files in the same run: the baseline.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

from core.inside import neural_voice, parse_book, spoken_spans


def sentences(book: Path, count: int, skip_sections: int = 0) -> list[str]:
    """The first ``count`` sentences of the book's first chapter with prose (a paragraph of 200 characters)."""
    parsed = parse_book(book.read_bytes(), book.name)
    found: list[str] = []
    started = False
    for section in parsed.sections[skip_sections:]:
        for segment in section.segments:
            if segment.kind == "image":
                continue
            started = started or len(segment.text) >= 200
            if started:
                found += [segment.text[a:b].strip() for a, b in spoken_spans(segment.text) if segment.text[a:b].strip()]
            if len(found) >= count:
                return found[:count]
    return found


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(lines: list[str]) -> dict[str, object]:
    start = time.perf_counter()
    neural_voice.cache_clear()
    voice = neural_voice()
    first = voice.synthesize(lines[0])
    cold = time.perf_counter() - start
    warm = float("inf")  # the best of three: a warm path's latency, not another process's share of the cores
    for _ in range(3):
        start = time.perf_counter()
        voice.synthesize(lines[0])
        warm = min(warm, time.perf_counter() - start)
    start = time.perf_counter()
    voice.synthesize(min(lines, key=len))
    warm_short = time.perf_counter() - start
    start = time.perf_counter()
    voice.synthesize(max(lines, key=len))
    warm_long = time.perf_counter() - start
    cpu, wall, children = time.process_time(), time.perf_counter(), _children_cpu()
    audio = sum(len(voice.synthesize(line)) for line in lines) / voice.sample_rate
    cpu, wall = time.process_time() - cpu + _children_cpu() - children, time.perf_counter() - wall
    rows: dict[str, object] = {
        "sentences": len(lines),
        "first sentence characters": len(lines[0]),
        "first audio, cold (model loading) s": round(cold, 3),
        "first audio, warm s": round(warm, 3),
        "first audio, shortest sentence, warm s": round(warm_short, 3),
        "first audio, longest sentence, warm s": round(warm_long, 3),
        "longest sentence characters": max(len(line) for line in lines),
        "first sentence audio s": round(len(first) / voice.sample_rate, 2),
        "speech s": round(audio, 2),
        "natural voice: speech s per CPU s": round(audio / cpu, 2),
        "natural voice: speech s per wall s": round(audio / wall, 2),
    }
    espeak = shutil.which("espeak-ng")
    if espeak is not None:
        with tempfile.TemporaryDirectory() as folder:
            children, wall = _children_cpu(), time.perf_counter()
            spoken = 0.0
            for number, line in enumerate(lines):
                path = Path(folder) / f"{number}.wav"
                subprocess.run([espeak, "-v", "en-us", "-w", str(path), "--", line], capture_output=True, check=True)
                with wave.open(str(path), "rb") as audio_file:
                    spoken += audio_file.getnframes() / audio_file.getframerate()
            cpu_espeak, wall_espeak = _children_cpu() - children, time.perf_counter() - wall
        rows["eSpeak NG: speech s per CPU s"] = round(spoken / max(cpu_espeak, 1e-6), 2)
        rows["eSpeak NG: speech s per wall s"] = round(spoken / wall_espeak, 2)
        rows["natural voice CPU per speech s, times eSpeak NG's"] = round(
            (cpu / audio) / max(cpu_espeak / spoken, 1e-9), 1
        )
    rows["goal: first audio under 1 s (warm, a sentence)"] = warm < 1.0
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--book", type=Path, default=Path("../shared/data/books/en/idpf-moby-dick.epub"))
    parser.add_argument("--sentences", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = measure(sentences(args.book, args.sentences))
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        for name, value in rows.items():
            print(f"{name:<52} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
