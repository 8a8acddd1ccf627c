"""Fuzzed imports: mutated real books through the real import, counted by outcome, with peak memory.

    python -m bench.fuzz --data ../shared/data/books [--cases 2000] [--seconds 300] [--seed N] [--json]

Every case is a real book with bit flips, random bytes, a cut or a zeroed run; each must import or be refused
with BookFormatError (a readable one-line message) and leave the library as it was. Anything else is a crash,
listed with the exception's type. The seed fixes the cases; the time budget may stop a slow machine early.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from core import BookFormatError
from core.inside import Library

SEED = 20261130
SOURCES = [  # small real books of the formats the importers read
    "minimal/epubcheck-epub2-minimal.epub",
    "minimal/epubcheck-minimal.epub",
    "malformed/epubjs-alice_without_cover.epub",
    "en/idpf-childrens-literature.epub",
    "zh/luxun_nahan.txt",
    "zh/hongloumeng_120.md",
    "formats/luxun-nahan.fb2",
    "formats/alice-illustrations.cbz",
    "formats/libtasn1-manual-pdftex.pdf",
    "formats/alice-scanned.pdf",  # no text layer: pages drawn by pdfium where it is installed
    "formats/luxun-nahan.azw3",
]


@dataclass
class FuzzReport:
    """What happened to the mutated files."""

    tried: int = 0
    imported: int = 0
    refused: int = 0
    bad_messages: list[str] = field(default_factory=list)  # refusals not fit to show
    crashes: list[str] = field(default_factory=list)  # anything but a book or BookFormatError
    seconds: float = 0.0
    peak_rss_mb: float = 0.0
    by_format: dict[str, list[int]] = field(default_factory=dict)  # suffix -> [tried, handled]

    @property
    def handled(self) -> int:
        return self.imported + self.refused


def mutate(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    """One random damage to a file: a bit flip, a few random bytes, a cut, inserted bytes or a zeroed run."""
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


def fuzz(
    sources: list[tuple[bytes, str]], library: Library, *, seed: int = SEED, cases: int = 400, seconds: float = 30.0
) -> FuzzReport:
    """Import ``cases`` mutated files (fewer if ``seconds`` run out) into ``library`` and count the outcomes."""
    rng, report = random.Random(seed), FuzzReport()
    started = time.monotonic()
    while report.tried < cases and time.monotonic() - started < seconds:
        data, suffix = rng.choice(sources)
        how, mutated = mutate(data, rng)
        before = library.conn.execute("SELECT COUNT(*) FROM books").fetchone()[0]
        try:
            library.import_bytes(mutated, f"fuzz-{report.tried}{suffix}")
            report.imported += 1
        except BookFormatError as error:
            report.refused += 1
            message = str(error)
            written = library.conn.execute("SELECT COUNT(*) FROM books").fetchone()[0] != before
            if written or len(message) > 240 or not message.isprintable() or "object has no attribute" in message:
                report.bad_messages.append(f"{how}: {message[:120]}")
        except Exception as error:
            report.crashes.append(f"{how} on {suffix}: {type(error).__name__}: {str(error)[:120]}")
        report.tried += 1
        counts = report.by_format.setdefault(suffix, [0, 0])
        counts[0] += 1
        counts[1] = counts[0] - sum(1 for crash in report.crashes if crash.split(": ")[0].endswith(suffix))
    report.seconds = round(time.monotonic() - started, 1)
    report.peak_rss_mb = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return report


TEXT_SAMPLE = 64 * 1024  # a text book's first 64 KB (whole lines) is enough to damage, and quick to import


def load_sources(data: Path) -> list[tuple[bytes, str]]:
    """The sample books that exist under ``data``, as (bytes, suffix); long texts cut to their opening."""
    sources = []
    for name in SOURCES:
        path = data / name
        if not path.is_file():
            continue
        raw = path.read_bytes()
        if path.suffix in (".txt", ".md", ".fb2") and len(raw) > TEXT_SAMPLE:
            raw = raw[: raw.rfind(b"\n", 0, TEXT_SAMPLE) + 1]
        sources.append((raw, path.suffix))
    return sources


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/books"))
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sources = load_sources(args.data)
    if not sources:
        print(f"no sample books under {args.data}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        library = Library(Path(folder) / "lib")
        report = fuzz(sources, library, seed=args.seed, cases=args.cases, seconds=args.seconds)
        library.close()
    if args.json:
        print(json.dumps({**asdict(report), "handled": report.handled}, indent=2))
    else:
        print(f"{'tried':>6} {'handled':>8} {'imported':>9} {'refused':>8} {'crashes':>8} {'bad msgs':>9} "
              f"{'seconds':>8} {'peak RSS':>9}")  # fmt: skip
        print(f"{report.tried:>6} {report.handled:>8} {report.imported:>9} {report.refused:>8} "
              f"{len(report.crashes):>8} {len(report.bad_messages):>9} {report.seconds:>8} {report.peak_rss_mb:>7}MB")  # fmt: skip
        for suffix, (tried, handled) in sorted(report.by_format.items()):
            print(f"  {suffix}: tried {tried}, handled {handled}")
        for line in report.crashes + report.bad_messages:
            print("  " + line)
    return 1 if report.crashes or report.bad_messages else 0


if __name__ == "__main__":
    sys.exit(main())
