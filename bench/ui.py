"""App start, book opening and memory, measured through a real browser (Playwright + Debian's Chromium).

    python -m bench.ui [--repeat 5] [--json]

- start: from launching ``main.py --web`` to the library showing Moby-Dick in the browser (interactive);
  baseline in the same run: a one-line Flet app in the same web mode, launched and shown the same way,
  so the ratio is Quire's own start-up cost over Flet's floor on this machine;
- open: from clicking Moby-Dick's cover to the reader's tools being on screen (the first text is drawn in
  the same frame), median of several opens (back to the library in between);
- memory: the app server's resident memory (VmRSS) with Moby-Dick open.
Targets (issue 5): start under 5 s, open under 1 s, RSS under 300 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path

from bench.common import MOBY, percentile, rss_mb
from core.services import Quire

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from browserkit import CHROMIUM_ARGS, Screen, chromium_path, free_port  # noqa: E402

BASELINE_APP = textwrap.dedent(
    """
    import flet as ft
    def main(page):
        page.add(ft.Container(ft.Text("Moby-Dick"), tooltip="Open Moby-Dick", on_click=lambda e: None))
    ft.run(main, view=ft.AppView.WEB_BROWSER, port={port}, no_cdn=True)
    """
)


def _launch(command: list[str], env: dict[str, str], port: int) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return process, url
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"{command} did not answer on {url}")


def time_to_interactive(browser, command: list[str], env: dict[str, str], port: int):
    """Seconds from launch to the Moby-Dick card in the browser; returns (seconds, process, screen)."""
    started = time.perf_counter()
    process, url = _launch(command, env, port)
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    screen = Screen(page, "bench").open(url)
    screen.text("Open Moby-Dick").wait_for(state="visible", timeout=60_000)
    return time.perf_counter() - started, process, screen


def run(repeat: int) -> dict:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        library = Path(folder) / "lib"
        Quire(library).import_paths([MOBY])
        env = {**os.environ, "QUIRE_LIBRARY": str(library)}
        env.pop("DISPLAY", None)
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)

        port = free_port()
        script = Path(folder) / "baseline.py"
        script.write_text(BASELINE_APP.format(port=port))
        baseline, process, screen = time_to_interactive(browser, [sys.executable, str(script)], env, port)
        screen.page.close()
        process.terminate()
        process.wait()

        port = free_port()
        command = [sys.executable, "main.py", "--web", "--port", str(port)]
        start, process, screen = time_to_interactive(browser, command, env, port)
        opens = []
        try:
            for _ in range(repeat):
                screen.settle(0.5)
                began = time.perf_counter()
                screen.labelled("Open Moby-Dick").click(force=True)
                screen.labelled("Appearance").wait_for(state="visible", timeout=30_000)
                opens.append(time.perf_counter() - began)
                rss = rss_mb(process.pid)
                screen.settle(0.3)
                screen.labelled("Library").click(force=True)
                screen.labelled("Open Moby-Dick").wait_for(state="visible", timeout=30_000)
        finally:
            process.terminate()
            process.wait()
            browser.close()
    return {
        "start_s": round(start, 2),
        "start_baseline_s": round(baseline, 2),
        "start_ratio": round(start / baseline, 2),
        "open_p50_s": round(percentile(opens, 0.5), 3),
        "open_max_s": round(max(opens), 3),
        "rss_mb_with_book_open": round(rss, 1),
        "targets": {"start_s": 5, "open_s": 1, "rss_mb": 300},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="how many times to open the book")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if not chromium_path():
        sys.exit("bench.ui needs Chromium: apt-get install chromium")
    result = run(args.repeat)
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"start to interactive library: {result['start_s']} s "
        f"(bare Flet app {result['start_baseline_s']} s, ratio {result['start_ratio']}; target 5 s)"
    )
    print(f"open Moby-Dick to its text: p50 {result['open_p50_s']} s, max {result['open_max_s']} s (target 1 s)")
    print(f"app server RSS with Moby-Dick open: {result['rss_mb_with_book_open']} MB (target 300 MB)")


if __name__ == "__main__":
    main()
