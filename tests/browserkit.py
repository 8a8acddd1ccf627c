"""Browser end-to-end helpers: run ``main.py`` as a web server and drive it with Playwright and Chromium.

Flet's web client draws on a canvas; with its semantics tree switched on (one click on the placeholder),
texts and tooltips become DOM nodes that Playwright can find and click.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from waiting import until

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(os.environ.get("QUIRE_ARTIFACTS", ROOT / "tests" / "artifacts"))


def chromium_path() -> str | None:
    """Debian's Chromium (what ``.ci/run`` installs), or $QUIRE_CHROMIUM."""
    return os.environ.get("QUIRE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def app_server(
    library: Path, port: int | None = None, env: dict[str, str] | None = None, args: tuple[str, ...] = ()
) -> Iterator[str]:
    """``python main.py --web --port N [args]`` on a library folder; yields its URL once it answers.

    With ``QUIRE_WEB_TOKEN`` in ``env`` the URL carries the token (as the one the app prints does).
    """
    port = port or free_port()
    library.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **(env or {}), "QUIRE_LIBRARY": str(library)}
    env.pop("DISPLAY", None)
    log = open(library.parent / f"app-{port}.log", "w")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [sys.executable, "main.py", "--web", "--port", str(port), *args], cwd=ROOT, env=env, stdout=log, stderr=log
    )
    token = env.get("QUIRE_WEB_TOKEN")
    url = f"http://127.0.0.1:{port}/" + (f"?token={token}" if token else "")
    try:

        def serving() -> bool:
            try:
                with urllib.request.urlopen(url, timeout=2):
                    return True
            except OSError:
                if process.poll() is not None:
                    log_text = (library.parent / f"app-{port}.log").read_text()
                    raise RuntimeError(f"the app did not start: {log_text}") from None
                return False

        until(serving, 60, "the app to serve")
        try:
            yield url
        except BaseException:
            log.flush()  # the app's own account beside the test's failure (its folder may be gone by the time one looks)
            print((library.parent / f"app-{port}.log").read_text()[-6000:])
            raise
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


# The semantics tree (each node's label, text length and box) unchanged for ``hold`` ms since ``Screen.quiet`` began.
QUIET = """hold => {
    const now = JSON.stringify(Array.from(document.querySelectorAll('flt-semantics'), n => {
        const r = n.getBoundingClientRect();
        return [n.getAttribute('aria-label'), n.textContent.length, r.x, r.y, r.width, r.height];
    }));
    if (window.__quietLast !== now) { window.__quietLast = now; window.__quietSince = performance.now(); return false; }
    return performance.now() - window.__quietSince >= hold;
}"""
# A text box kept the keyboard 0.5 s since ``__focusSince`` (true too once it lost it: the caller looks and clicks again).
FOCUS_HELD = """() => {
    const editing = ['TEXTAREA', 'INPUT'].includes(document.activeElement && document.activeElement.tagName);
    return !editing || performance.now() - window.__focusSince >= 500;
}"""


class Screen:
    """One browser page showing the app, with waits that fit a canvas-drawn UI."""

    def __init__(self, page, name: str) -> None:
        self.page = page
        self.name = name

    def open(self, url: str, steady: bool = True) -> Screen:
        """Load the app and switch its semantics tree on; then (``steady``) wait for the layout to stop moving."""
        self.page.goto(url)
        self.page.wait_for_selector("flt-semantics-placeholder", state="attached", timeout=60_000)
        self.page.evaluate("document.querySelector('flt-semantics-placeholder')?.click()")
        if steady:
            self.steady()
        return self

    def steady(self, timeout: float = 15.0) -> None:
        """Wait until the labelled nodes stop moving: the first layout of a session is not always its last.

        Seen in CI: a phone-sized session was laid out about 155 px wide, then at 390 px; the tap on a library
        card that landed between the two opened nothing. Gives up quietly after ``timeout`` seconds (a screen
        that keeps moving, a spinner, is then the test's own wait to judge).
        """
        self.quiet(hold=0.5, timeout=timeout)

    def quiet(self, hold: float = 0.3, timeout: float = 10.0) -> None:
        """Wait until the screen stops changing: its semantics nodes (each one's label, text and box) the same for
        ``hold`` seconds, read every 0.1 s. What a person waits for before tapping or looking: a redraw landed, a
        streamed answer done, a theme's change animated. Gives up quietly after ``timeout`` seconds, as ``steady``
        does: a screen that keeps moving is the test's own check to judge."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout  # here: without it the browser tests skip

        self.page.evaluate("() => { window.__quietLast = undefined; }")  # this wait's own watch, from now
        with contextlib.suppress(PlaywrightTimeout):  # still moving: the test's own check judges it
            self.page.wait_for_function(QUIET, arg=hold * 1000, polling=100, timeout=timeout * 1000)

    def until(self, condition: Callable[[], object], what: str, timeout: float = 20.0) -> None:
        """Wait until ``condition()`` holds (``waiting.until``, the suite's one poll); AssertionError naming
        ``what``, with a screenshot kept, after ``timeout`` seconds."""
        try:
            until(condition, timeout, what)
        except AssertionError:
            self.shot("failed")
            raise

    def labelled(self, label: str):
        """The visible node whose accessible label (a tooltip or a card's label) starts with ``label``.

        Visible first: a redraw can leave a zero-sized twin of a node in the semantics tree for a while, and
        ``.first`` alone would wait on that one.
        """
        return self.page.locator(f'flt-semantics[aria-label^="{label}"]').filter(visible=True).first

    def click_label(self, label: str, timeout: float = 20_000) -> None:
        self.quiet()  # let the last redraw land, or the click may hit a node that is being replaced
        self._click(self.labelled(label), f"a node labelled {label!r}", timeout)

    def _click(self, node, what: str, timeout: float) -> None:
        """Wait for ``node`` and click it; a node that a redraw hid between the two is looked up again.

        Seen in CI: a phone-sized session laid out first at about 155 px and redrawn at 390 px hid the library
        card that had just been found visible, and the click failed with "Element is not visible".
        """
        deadline = time.monotonic() + timeout / 1000
        while True:
            self._wait_visible(node, what, max(1_000.0, (deadline - time.monotonic()) * 1000))
            try:
                node.click(force=True, timeout=5_000)  # the canvas hit-tests by position; overlays must not block
                return
            except Exception as error:
                redrawn = "not visible" in str(error) or "detached" in str(error)
                if not redrawn or time.monotonic() > deadline:
                    raise
                self.quiet()  # the redraw that hid it, landed

    def click_label_until(self, label: str, text: str, tries: int = 3) -> None:
        """Click the node labelled ``label`` until ``text`` shows (``tries`` clicks at most, 8 s after each).

        Measured: a new phone-sized session is first laid out about 155 px wide and redrawn at 390 px a moment
        later (the page's width, logged by the app); a tap that lands between the two is lost, as a person's
        would be, who then taps again. Seen in 1 of 2 runs of the tour, with this code and the code before it.
        """
        for attempt in range(tries):
            self.click_label(label)
            try:
                self.text(text).wait_for(state="visible", timeout=8_000)
                return
            except Exception:
                if attempt == tries - 1:
                    self.wait_text(text, timeout=1)  # fails, keeping a screenshot and the screen's labels

    def box(self, hint: str):
        """The text field whose hint starts with ``hint`` (its editing element, which Flutter labels with the hint)."""
        return self.page.locator(f'textarea[aria-label^="{hint}"], input[aria-label^="{hint}"]').first

    def type_into(self, hint: str, text: str) -> None:
        """Focus the text field whose hint starts with ``hint`` and type ``text`` as a person would.

        Waits that were each measured to be needed:

        - Flutter moves the keyboard focus to its editing element a frame after the click: a key typed before
          that is dropped (the first letter of a question went missing).
        - With the semantics tree on (these tests), a button clicked through its semantics node keeps the DOM
          focus; when a redraw replaces that button (a citation chip that opens the book), the first box
          clicked afterwards loses the focus again 0.1 to 0.15 s later, and the letters typed then go nowhere.
          A second click holds. A mouse click on the canvas with the semantics tree off (what most people
          use) does not do this: measured in the same build, the box kept the focus and the text.
        """
        from playwright.sync_api import TimeoutError as PlaywrightTimeout  # here: without it the browser tests skip

        field = self.box(hint)
        field.wait_for(state="attached", timeout=20_000)
        editing = "['TEXTAREA', 'INPUT'].includes(document.activeElement && document.activeElement.tagName)"
        typed = "text => (document.activeElement && document.activeElement.value || '') === text"
        deadline = time.monotonic() + 45
        while True:
            try:
                field.click(force=True)
                self.page.wait_for_function(editing, timeout=3_000)
                self.page.evaluate("() => { window.__focusSince = performance.now(); }")
                self.page.wait_for_function(FOCUS_HELD, polling=50, timeout=3_000)  # it held 0.5 s, or it went
                if self.page.evaluate(editing):
                    self.page.keyboard.press("ControlOrMeta+A")  # a try cut short left some letters: replace them
                    self.page.keyboard.type(text)
                    self.page.wait_for_function(typed, arg=text, timeout=3_000)  # every letter is in the box
                    return
            except PlaywrightTimeout:
                pass  # the focus did not come, or went while typing: click again
            if time.monotonic() > deadline:
                self.shot("failed")  # as the other waits here do: what the screen showed instead
                raise AssertionError(f"the box {hint!r} never kept the keyboard focus long enough to type {text!r}")

    def send(self, hint: str, text: str, tries: int = 3) -> None:
        """Type ``text`` into the box whose hint starts with ``hint`` and press Enter until the app takes it.

        The app empties the box when it takes a question. It leaves it there, as typed, when an answer is still
        being finished (the send is refused, and the reader sends again); and an Enter pressed as the focus
        leaves the box after a redraw (see ``type_into``) goes nowhere. Either way a person clicks the box and
        presses Enter again. Seen once on CI: the second question of the chat test, typed right after a citation
        was opened, was never sent, and nothing on the screen said why. A box holding text has no label (Flutter
        labels it with its hint only while it is empty), so it is found by what it holds.
        """
        from playwright.sync_api import TimeoutError as PlaywrightTimeout  # here: without it the browser tests skip

        boxes = "[...document.querySelectorAll('textarea, input')]"
        editing = "['TEXTAREA', 'INPUT'].includes(document.activeElement && document.activeElement.tagName)"
        self.type_into(hint, text)
        for _try in range(tries):
            self.page.keyboard.press("Enter")
            taken = f"text => !{boxes}.some(e => e.value === text)"
            try:
                self.page.wait_for_function(taken, arg=text, timeout=8_000)  # the app empties the box it took
                return
            except PlaywrightTimeout:
                pass
            box = self.page.evaluate_handle(f"text => {boxes}.find(e => e.value === text) || null", text).as_element()
            if box is None:  # taken while the last check ran
                return
            if box.bounding_box() is None or not box.is_visible():
                # typed into a twin a redraw left behind (seen in a full run: the visible box was empty and the
                # question never reached the app): type it again into the box on screen, as a person would
                self.type_into(hint, text)
                continue
            box.click(force=True)
            self.page.wait_for_function(editing, timeout=3_000)  # the box has the keyboard again
        self.shot("failed")
        raise AssertionError(f"the box {hint!r} kept {text!r} after Enter was pressed {tries} times")

    def text(self, text: str):
        """A visible node showing ``text``: as its own text, or in a label Flutter merged from several texts."""
        quoted = text.replace("\\", "\\\\").replace('"', '\\"')  # a CSS string: its quotes and backslashes escaped
        labelled = self.page.locator(f'flt-semantics[aria-label*="{quoted}"]')
        return self.page.get_by_text(text, exact=False).or_(labelled).filter(visible=True).first

    def click_text(self, text: str, timeout: float = 20_000) -> None:
        self.quiet()
        self._click(self.text(text), f"a node showing {text!r}", timeout)

    def wait_text(self, text: str, timeout: float = 20_000) -> None:
        self._wait_visible(self.text(text), f"a node showing {text!r}", timeout)

    def _wait_visible(self, node, what: str, timeout: float) -> None:
        """Wait for ``node``; when it does not come, keep a screenshot and say which labels the screen had."""
        try:
            node.wait_for(state="visible", timeout=timeout)
        except Exception as error:
            self.shot("failed")  # what the screen showed instead
            labels = self.page.eval_on_selector_all(
                "flt-semantics[aria-label]", "nodes => nodes.map(n => n.getAttribute('aria-label')).slice(0, 60)"
            )
            raise AssertionError(f"waited {timeout / 1000:.0f} s for {what}; the screen's labels: {labels}") from error

    def shows(self, text: str) -> bool:
        return self.text(text).count() > 0 and self.text(text).is_visible()

    def shot(self, step: str) -> Path:
        """Save a screenshot under tests/artifacts/ (kept by CI) and return its path.

        The canvas paints a frame after the semantics tree changes; on a busy machine the first frame of a
        cold client can take seconds (Flet's "Working..." splash stays until then), so a blank capture is
        retried for a while (one that stays blank stays blank, and the test's own check fails on it).
        """
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{self.name}-{step}.png"
        self.quiet()

        def painted() -> bool:
            self.page.screenshot(path=str(path))
            return drawn(path)

        with contextlib.suppress(AssertionError):  # blank after 12 s stays blank: the test's check says so
            until(painted, 12, "a painted frame")
        return path

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        """The colour drawn at (x, y) of the viewport."""
        from io import BytesIO

        from PIL import Image

        image = Image.open(BytesIO(self.page.screenshot())).convert("RGB")
        return image.getpixel((x, y))


class MouseScreen:
    """The app as most people use it: a mouse on the canvas, the semantics tree never switched on.

    Switched on (as :class:`Screen` does, to find things by their labels), Flutter's web build moves the DOM focus
    to the page's body about 0.65 s after a click, whatever the app does (measured with a button that changes
    nothing): a field given the keyboard by the app in between loses it then. A person with a mouse never meets
    that. With no labels to wait on, a step waits until the screen looks like a photograph of the same step taken
    on a :class:`Screen` of the same size (where the places to click are found too).
    """

    def __init__(self, page) -> None:
        self.page = page

    def until_like(self, reference: Path, what: str) -> None:
        """Wait until the screen looks like ``reference`` (a hover's tooltip or a caret may differ)."""
        from io import BytesIO

        from PIL import Image, ImageChops, ImageStat

        with Image.open(reference) as image:
            wanted = image.convert("L").resize((360, 240))

        def like() -> bool:
            with Image.open(BytesIO(self.page.screenshot())) as image:
                now = image.convert("L").resize((360, 240))
            return ImageStat.Stat(ImageChops.difference(now, wanted)).mean[0] < 2.0

        try:
            until(like, 60, what)
        except AssertionError:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(ARTIFACTS / f"{reference.stem}-instead.png"))  # what it showed instead
            raise

    def count_focus_moves(self) -> None:
        """From now on, count the times a text field loses the keyboard and the times one takes it (see
        :meth:`field_given_back`)."""
        self.page.evaluate(
            """() => {
                const field = (e) => ['TEXTAREA', 'INPUT'].includes(e.target && e.target.tagName);
                if (!window.quireFocus) {
                    document.addEventListener('focusout', (e) => { if (field(e)) window.quireFocus.left++; }, true);
                    document.addEventListener('focusin', (e) => { if (field(e)) window.quireFocus.taken++; }, true);
                }
                window.quireFocus = {left: 0, taken: 0};
            }"""
        )

    def field_given_back(self) -> bool:
        """True once a field lost the keyboard since :meth:`count_focus_moves` and a field has it again."""
        moves = self.page.evaluate("window.quireFocus")
        return moves["left"] > 0 and moves["taken"] >= moves["left"] and self.focused_text() is not None

    def focused_text(self) -> str | None:
        """What the field with the keyboard focus holds (None when no field has it)."""
        return self.page.evaluate(
            "['TEXTAREA', 'INPUT'].includes(document.activeElement && document.activeElement.tagName)"
            " ? document.activeElement.value : null"
        )


def centre(node) -> tuple[float, float]:
    """The middle of a located node."""
    box = node.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def brightest(path: Path, box: tuple[int, int, int, int]) -> int:
    """The brightest pixel (0-255, mean of R, G, B) inside ``box`` (left, top, right, bottom) of a screenshot."""
    from PIL import Image

    with Image.open(path) as image:
        _, high = image.convert("L").crop(box).getextrema()
        return high


def ink(path: Path) -> float:
    """The share of a screenshot's pixels that stand out from its background (its commonest grey)."""
    from PIL import Image

    with Image.open(path) as image:
        grey = image.convert("L").resize((360, 240))
    counts = grey.histogram()
    background = max(range(256), key=counts.__getitem__)
    return sum(n for level, n in enumerate(counts) if abs(level - background) > 24) / (360 * 240)


def drawn(path: Path) -> bool:
    """A screenshot of a drawn screen: many colours, and more than a splash's worth of ink (an empty library
    has about 1%, Flet's loading splash 0.1%)."""
    return distinct_colours(path) > 12 and ink(path) > 0.005


def distinct_colours(path: Path) -> int:
    """How many colours a screenshot has: a blank or failed screen has very few."""
    from PIL import Image

    with Image.open(path) as image:
        return len(image.convert("RGB").resize((360, 240)).getcolors(maxcolors=1 << 20) or [])


def tallest_bar(path: Path) -> int:
    """The tallest run of one coloured (not grey) pixel down any column of a screenshot: a chart's bar is one;
    text, icons and lines are far shorter."""
    from PIL import Image

    with Image.open(path) as image:
        rgb = image.convert("RGB")
        width, height = rgb.size
        pixels = rgb.load()
    best = 0
    for x in range(width):
        run, last = 0, None
        for y in range(height):
            colour = pixels[x, y]
            coloured = max(colour) - min(colour) > 40
            run = run + 1 if coloured and colour == last else (1 if coloured else 0)
            last = colour
            best = max(best, run)
    return best
