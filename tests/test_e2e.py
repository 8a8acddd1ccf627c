"""Browser end-to-end: the real app in Chromium at desktop and phone sizes, with screenshots kept and checked.

Needs Debian's Chromium (``.ci/run`` installs it). Without it these tests skip, unless QUIRE_REQUIRE_E2E=1
(as in CI), where a missing browser is a failure.
"""

import json
import os
import time
from pathlib import Path

import pytest
from browserkit import (
    ARTIFACTS,
    CHROMIUM_ARGS,
    Screen,
    app_server,
    brightest,
    centre,
    chromium_path,
    drawn,
    ink,
    tallest_bar,
)
from conftest import book_path, debian_file
from dbkit import inside
from waiting import until

from core.services import Quire

if not chromium_path() and os.environ.get("QUIRE_REQUIRE_E2E") != "1":
    pytest.skip("Chromium is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api") if os.environ.get("QUIRE_REQUIRE_E2E") != "1" else None
from playwright.sync_api import Error as PlaywrightError, sync_playwright  # noqa: E402

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _not_blank(path: Path) -> None:
    assert drawn(path), f"{path.name} looks blank"


def _place(library: Path) -> str:
    """The chapter the app saved as the reading position (read from the library file, as a second client)."""
    quire = Quire(library)
    try:
        position = quire.position(1)
        return quire.text.segments(1, position.ordinal, 1)[0].section_title if position else ""
    finally:
        quire.close()


def _ordinal(library: Path, book_id: int) -> int:
    quire = Quire(library)
    try:
        position = quire.position(book_id)
        return position.ordinal if position else -1
    finally:
        quire.close()


def _count_books(library: Path) -> int:
    quire = Quire(library)
    try:
        return len(quire.books())
    finally:
        quire.close()


def _wait_place(screen: Screen, library: Path, chapter: str) -> None:
    screen.until(lambda: _place(library) == chapter, f"the place saved at {chapter!r}", 10)


# The text fields on screen that a screen reader would announce with no name (Flutter's web build gives each its label
# or hint as aria-label); issue 36 asks for none, on every screen.
UNNAMED_FIELDS = (
    "() => [...document.querySelectorAll('input, textarea')]"
    ".filter(e => !(e.getAttribute('aria-label') || '').trim()).length"
)


def _fields_named(page, where: str) -> None:
    """Every text field on screen has a name, and there is one to check (else the check proves nothing); every
    button too."""
    assert page.evaluate("() => document.querySelectorAll('input, textarea').length") > 0, f"no field in {where}"
    assert page.evaluate(UNNAMED_FIELDS) == 0, f"a field of {where} has no name"
    _buttons_named(page, where)


def _buttons_named(page, where: str) -> None:
    """Every button on screen has a name (an icon button was a bare "button" to a screen reader: its tooltip
    labelled a node around it, and inside a notes card not even that)."""
    assert page.evaluate("() => document.querySelectorAll('flt-semantics[role=button]').length") > 0
    nameless = page.evaluate(
        "() => [...document.querySelectorAll('flt-semantics[role=button]')]"
        ".filter(e => !(e.getAttribute('aria-label') || e.innerText || '').trim())"
        ".map(e => { const r = e.getBoundingClientRect(); let p = e.parentElement;"
        " while (p && !p.getAttribute('aria-label')) p = p.parentElement;"
        " return [p ? p.getAttribute('aria-label').slice(0, 40) : null, Math.round(r.x), Math.round(r.y)]; })"
    )
    assert not nameless, f"button(s) of {where} with no name (the labelled node around each, and where): {nameless}"


def _wait_ordinal(screen: Screen, library: Path, ordinal: int) -> int:
    """Wait until the reader's saved place is the paragraph at ``ordinal``, and give it."""
    screen.until(lambda: _ordinal(library, 1) == ordinal, f"the place saved at paragraph {ordinal}", 10)
    return ordinal


def test_desktop_import_read_jump_theme_search_highlight_and_reopen(browser, tmp_path: Path) -> None:
    library = tmp_path / "lib"
    with app_server(library) as url:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        screen = Screen(page, "desktop").open(url)
        screen.wait_text("Your library is empty")
        _not_blank(screen.shot("1-empty-library"))
        with page.expect_file_chooser() as chooser:
            screen.click_label("Import books")
        bad = book_path("malformed/epubcheck-ocf-zip-unreadable-image-with-epub-extension-fatal.epub")
        chooser.value.set_files([str(book_path("en/idpf-moby-dick.epub")), str(bad)])
        screen.wait_text("1 imported, 0 already in your library, 1 failed", timeout=60_000)
        assert screen.shows("Imported Moby-Dick")
        _not_blank(screen.shot("2-import-report"))
        screen.click_text("Close")
        screen.click_label("Open Moby-Dick")
        screen.wait_text("Contents")
        screen.click_text("Chapter 1. Loomings.")
        _wait_place(screen, library, "Chapter 1. Loomings.")
        _not_blank(screen.shot("3-reader-chapter-1"))

        screen.click_label("Appearance")
        screen.click_text("Dark")

        # The page's background beside the text, once the theme's change has animated to its end (under load in a
        # full run, one point read mid-grey 0.8 s after the click).
        def darkest() -> tuple[int, int, int]:
            return min((screen.pixel(x, y) for x, y in ((1000, 450), (1400, 450), (1400, 300), (1400, 600))), key=sum)

        screen.until(lambda: sum(darkest()) < 150, "the dark theme's background", 10)
        shot = screen.shot("4-dark-theme")
        _not_blank(shot)
        assert brightest(shot, (350, 150, 1000, 450)) > 180  # the text is light on the dark page, not black
        screen.click_text("Sepia")

        def sepia() -> bool:
            red, _green, blue = screen.pixel(1000, 450)
            return red > blue + 15 and red + _green + blue > 500

        screen.until(sepia, "the sepia background", 10)
        screen.click_label("Close")

        page.keyboard.press("Control+f")
        screen.type_into("Search in book", "Rokovoko")  # the search box itself, not the first input on the page
        page.keyboard.press("Enter")
        screen.wait_text("matches")
        _not_blank(screen.shot("5-search-results"))
        screen.click_text("Queequeg was a native")
        _wait_place(screen, library, "Chapter 12. Biographical.")
        _not_blank(screen.shot("6-search-hit-marked"))
        screen.click_label("Close")
        screen.quiet()

        # double-click a word of the first paragraph (the hit, at the top of the text under "Back to where you
        # were") to select it
        page.mouse.dblclick(400, 180)
        screen.labelled("Highlight in Yellow").wait_for(timeout=20_000)

        def coloured(name: str) -> bool:
            red, green, blue = screen.pixel(*map(round, centre(screen.labelled(f"Highlight in {name}"))))
            return max(red, green, blue) - min(red, green, blue) > 40

        for name in ("Yellow", "Green", "Blue", "Pink", "Purple"):  # issue 60: five grey dots; each its colour
            until(lambda name=name: coloured(name), 20, f"{name}'s dot in its colour (it stayed grey)")
        _not_blank(screen.shot("7a-selection-bar"))
        screen.click_label("Highlight in Yellow")
        screen.quiet()  # the highlight drawn
        _not_blank(screen.shot("7-highlight"))
        screen.click_label("Notes")
        screen.wait_text("1 highlight")
        screen.click_label("Close")

        screen.click_label("Library")
        screen.wait_text("1 book")
        screen.click_label("Open Moby-Dick")
        screen.wait_text("Queequeg was a native")  # reopened where it was left
        _not_blank(screen.shot("8-reopened"))
        page.close()
    assert _place(library) == "Chapter 12. Biographical."  # reopened at the same place
    quire = Quire(library)
    highlight = quire.notes.highlights(1)[0]
    assert highlight.color == "yellow" and highlight.text.strip() and highlight.start.section == 17


def test_phone_layout_contents_sheet_and_reader(browser, tmp_path: Path) -> None:
    library = tmp_path / "lib"
    Quire(library).import_paths([book_path("en/epubjs-alice.epub"), book_path("zh/hongloumeng_120.md")])
    with app_server(library) as url:
        page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        screen = Screen(page, "phone").open(url)
        screen.wait_text("2 books")
        _not_blank(screen.shot("1-library"))
        screen.click_label("Open hongloumeng")
        screen.wait_text("第一回")  # the chapter title in the header
        _not_blank(screen.shot("2-reader-chinese"))
        screen.click_label("Contents")
        screen.click_text("第三回")
        screen.wait_text("林黛玉抛父进京都")
        _not_blank(screen.shot("3-after-contents"))
        before = _ordinal(library, 2)
        for _ in range(6):  # scroll down through the chapter: the place is saved as the text moves
            page.mouse.wheel(0, 600)
            screen.quiet()
        screen.until(lambda: _ordinal(library, 2) > before, "the place saved further on", 10)
        _not_blank(screen.shot("4-scrolled"))
        page.close()


def test_a_reloaded_tab_shows_books_a_cli_import_added(browser, tmp_path: Path) -> None:
    """Issue 60 item 4: a library tab open during a CLI import kept the old count after a reload."""
    import subprocess
    import sys

    library = tmp_path / "lib"
    Quire(library).import_paths([book_path("en/epubjs-alice.epub")])
    with app_server(library) as url:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        screen = Screen(page, "reload").open(url)
        screen.wait_text("1 book")
        subprocess.run([sys.executable, "-m", "app.cli", "--library", str(library), "import",
                        str(book_path("zh/luxun_nahan.txt"))], check=True, cwd=Path(__file__).parent.parent)  # fmt: skip
        page.reload()
        page.wait_for_selector("flt-semantics-placeholder", state="attached", timeout=60_000)
        page.evaluate("document.querySelector('flt-semantics-placeholder')?.click()")
        screen.wait_text("2 books", timeout=30_000)
        _not_blank(screen.shot("1-after-reload"))
        page.close()


def test_a_pdfs_toolbar_fits_a_phone(browser, tmp_path: Path) -> None:
    """Issue 60 item 2: "Next page" was pushed off a phone's screen by a PDF's one more tool."""
    library = tmp_path / "lib"
    Quire(library).import_paths([book_path("formats/epubjs-alice.pdf")])
    with app_server(library) as url:
        page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        screen = Screen(page, "phone-pdf").open(url)
        screen.click_label("Open ")
        screen.labelled("Next page").wait_for(timeout=30_000)
        screen.steady()  # the phone's first layout is not always its last: wait until the labels stop moving
        _not_blank(screen.shot("1-reader"))
        for label in ("Previous page", "Next page", "Contents", "Show the pages as printed"):
            box = screen.labelled(label).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (label, box)
        page.close()


def test_chat_streams_parts_cites_and_stops_at_desktop_and_phone_sizes(browser, tmp_path: Path) -> None:
    from openai_mock import OpenAIMock, tool_call_deltas

    from core.agent.threads_store import ChatStore

    library = tmp_path / "lib"
    Quire(library).import_paths([book_path("en/epubjs-alice.epub")])
    answer = ["The cat ", "grins ", "because ", "it is ", "a Cheshire ", "cat [1]."]
    script = [
        [{"reasoning_content": "Look for the grinning cat."},
         *tool_call_deltas("c1", "keyword_search", {"query": "Cheshire cat grins"})],
        tool_call_deltas("c2", "cite", {"passage": 1, "quote": "grins like that"}),
        {"deltas": [{"content": piece} for piece in answer], "delay": 0.6},
        {"deltas": [{"content": f"word{n} "} for n in range(60)], "delay": 0.6},  # a long answer (36 s), to stop
    ]  # fmt: skip
    with OpenAIMock(script) as mock:
        settings = {"provider": {"kind": "deepseek", "model": "deepseek-reasoner", "base_url": mock.url},
                    "spoiler_protection": False}  # fmt: skip
        library.mkdir(parents=True, exist_ok=True)
        (library / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        with app_server(library, env={"DEEPSEEK_API_KEY": "sk-test-not-real"}) as url:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            screen = Screen(page, "chat-desktop").open(url)
            screen.click_label("Open Alice")
            screen.click_label("Ask the book")
            screen.wait_text("AI: deepseek")
            screen.send("Ask about this book", "Why does the cat grin?")
            screen.wait_text("Why does the cat grin?")  # the question, in the accessibility tree too (selectable text)
            screen.wait_text("Tool: keyword_search", timeout=30_000)
            assert not screen.shows("a Cheshire cat [1]")  # the tool card is drawn before the text is done
            _not_blank(screen.shot("1-tool-card-while-streaming"))
            screen.wait_text("[1]", timeout=30_000)
            screen.wait_text("a Cheshire cat", timeout=30_000)
            _not_blank(screen.shot("2-answer-with-citation"))
            screen.click_label("[1]")
            _wait_place(screen, library, "Pig And Pepper")
            screen.wait_text("Back to where you were")  # the place is saved before the jump is drawn
            _not_blank(screen.shot("3-citation-opened"))
            screen.send("Ask about this book", "Tell me everything")
            screen.wait_text("word3", timeout=30_000)
            screen.type_into("Ask about this book", "And then?")  # the next question, typed while the answer streams
            screen.wait_text("word6", timeout=30_000)  # three more redraws of the streamed text, the box holding it
            kept = page.evaluate("document.activeElement && document.activeElement.value")  # still focused, as typed
            assert kept == "And then?" and screen.shows("Stop")
            screen.click_label("Stop")
            screen.wait_text("Stopped", timeout=30_000)
            _not_blank(screen.shot("4-stopped"))
            page.close()

            phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            screen = Screen(phone, "chat-phone").open(url)
            screen.click_label_until("Open Alice", "Ask the book")
            screen.click_label("Ask the book")
            screen.wait_text("Stopped")  # the latest thread, as it was left
            _not_blank(screen.shot("1-chat-sheet"))
            phone.close()
    quire = Quire(library)
    store = ChatStore(inside(quire).library)
    [thread] = store.threads(1)
    answers = [m for m in store.messages(thread.id) if m.role == "assistant"]
    assert [m.status for m in answers] == ["complete", "stopped"] and len(mock.requests) == 4
    assert answers[0].text == "".join(answer)
    assert answers[1].text.startswith("word0 word1 word2 word3") and "word59" not in answers[1].text  # cut short


def test_no_remote_image_is_fetched_from_a_hostile_book_or_a_model(browser, tmp_path: Path) -> None:
    from epubkit import make_epub
    from httpkit import LocalServer, Reply
    from openai_mock import OpenAIMock

    with LocalServer(lambda request: Reply(200, b"GIF89a", {"content-type": "image/gif"})) as tracker:
        pixel = tracker.url.replace("127.0.0.1", "localhost")  # another origin than the app's
        body = (
            f"<p>The pink pixel watched the fox. ![pink pixel]({pixel}/markdown.gif) and "
            f'&lt;img src="{pixel}/html.gif"&gt; and [![x]({pixel}/nested.gif)](https://example.org)</p>'
        ) * 2
        data = make_epub([(f"The pink pixel ![t]({pixel}/title.gif)", body)], title="Pixel Tales")
        library = tmp_path / "lib"
        Quire(library).import_bytes(data, "pixel.epub")
        settings = {"spoiler_protection": False, "local_only": True}
        library.mkdir(parents=True, exist_ok=True)
        (library / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        with app_server(library) as url:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            requested: list[str] = []
            page.on("request", lambda request: requested.append(request.url))
            screen = Screen(page, "hostile-images").open(url)
            screen.click_label("Open Pixel Tales")
            screen.click_label("Ask the book")
            screen.send("Ask about this book", "What did the pink pixel watch?")
            screen.wait_text("[1]", timeout=30_000)  # the offline answer quotes the sentence under its chapter title
            screen.wait_text("title.gif)", timeout=10_000)  # the image syntax is shown as text
            _not_blank(screen.shot("1-offline-answer"))
            page.close()
        assert tracker.requests == [], [r.path for r in tracker.requests]
        assert not [u for u in requested if pixel.rsplit(":", 1)[1] in u], requested  # not even attempted

        script = [[{"content": f"Here: ![a]({pixel}/model.gif) <img src='{pixel}/model-html.gif'> done."}]]
        with OpenAIMock(script) as mock:
            provider = {"kind": "openai-compatible", "model": "m", "base_url": mock.url}
            (library / "settings.json").write_text(json.dumps({**settings, "provider": provider}), encoding="utf-8")
            with app_server(library, env={"QUIRE_LLM_API_KEY": "sk-test-not-real"}) as url:
                page = browser.new_page(viewport={"width": 1440, "height": 900})
                requested = []
                page.on("request", lambda request: requested.append(request.url))
                screen = Screen(page, "hostile-images").open(url)
                screen.click_label("Open Pixel Tales")
                screen.click_label("Ask the book")
                screen.click_label("New conversation")
                screen.click_text("Who are the main characters so far?")
                screen.wait_text("done.", timeout=30_000)
                _not_blank(screen.shot("2-model-answer"))
                page.close()
        assert mock.requests, "the model was asked"
        assert tracker.requests == [], [r.path for r in tracker.requests]
        assert not [u for u in requested if pixel.rsplit(":", 1)[1] in u], requested  # not even attempted


def test_serving_the_network_the_token_opens_the_app_and_nothing_else_does(browser, tmp_path: Path) -> None:
    library = tmp_path / "lib"
    Quire(library).import_paths([book_path("en/epubjs-alice.epub")])
    token = "a-long-secret-token-for-this-test-0123456789"
    with app_server(library, env={"QUIRE_WEB_TOKEN": token}, args=("--host", "0.0.0.0")) as url:
        assert url.endswith(f"?token={token}")
        stranger = browser.new_context()  # another computer on the network, without the link
        page = stranger.new_page()
        response = page.goto(url.split("?")[0])
        assert response.status == 403 and "private" in page.content() and "Alice" not in page.content()
        stranger.close()
        owner = browser.new_context(viewport={"width": 1440, "height": 900})
        page = owner.new_page()
        screen = Screen(page, "token").open(url)  # the link with the token: the cookie carries it from then on
        screen.wait_text("1 book")
        screen.click_label("Open Alice")  # the session's websocket works on the cookie alone
        screen.wait_text("Down The Rabbit-Hole")
        _not_blank(screen.shot("1-reader-over-the-network"))
        owner.close()


def test_a_library_that_cannot_open_gets_a_screen_not_a_dead_app(browser, tmp_path: Path) -> None:
    import sqlite3

    library = tmp_path / "lib"
    Quire(library).close()
    with sqlite3.connect(library / "library.db") as db:  # written by a newer Quire
        db.execute("INSERT INTO schema_migrations VALUES (999, 'from the future', '2030-01-01')")
    with app_server(library) as url:  # the server starts: the library is opened for the first page
        page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        screen = Screen(page, "storage-error").open(url)
        screen.wait_text("Quire cannot open your library")
        screen.wait_text("newer version of Quire")
        _not_blank(screen.shot("1-error-screen"))
        page.close()


TOUR_SIZES = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


def test_tour_of_every_screen_at_both_sizes_for_the_artifacts(browser, tmp_path: Path) -> None:
    """Library, reader (pages and scroll), contents, search, notes, settings and chat at desktop and phone sizes:
    each screen is waited for by what it must show, then kept as a screenshot (tests/artifacts/tour-*)."""
    library = tmp_path / "lib"
    quire = Quire(library)
    quire.import_paths([book_path("en/epubjs-alice.epub"), book_path("zh/hongloumeng_120.md")])
    quire.notes.add_highlight(1, "3.2:0", "3.2:40", "yellow", "the rabbit hole")
    quire.close()
    settings = library / "settings.json"
    with app_server(library) as url:
        for size, viewport in TOUR_SIZES.items():
            phone = size == "phone"
            settings.write_text(json.dumps({"layout": "paginated", "spoiler_protection": False}), encoding="utf-8")
            page = browser.new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
            screen = Screen(page, f"tour-{size}").open(url)
            screen.wait_text("2 books")
            screen.wait_text("Alice")
            _not_blank(screen.shot("1-library"))
            _fields_named(page, "the library")
            screen.click_label("Open Alice")
            if phone:
                screen.click_label("Contents")
            screen.wait_text("Pig And Pepper")  # a chapter in the contents
            _not_blank(screen.shot("3-contents"))
            _fields_named(page, "the contents")
            screen.click_text("Down The Rabbit-Hole")
            if not phone:
                screen.click_label("Close")
            _wait_place(screen, library, "Down The Rabbit-Hole")
            _not_blank(screen.shot("2-reader-pages"))
            screen.click_label("Search in book")
            screen.type_into("Search in book", "Rabbit")  # the search box itself, not the first input on the page
            page.keyboard.press("Enter")
            screen.wait_text("matches in")
            _not_blank(screen.shot("4-search"))
            _fields_named(page, "the search")
            screen.click_label("Close")
            screen.click_label("Notes")
            screen.wait_text("1 highlight")
            _not_blank(screen.shot("5-notes"))
            screen.click_label("Close")
            screen.click_label("Ask the book")
            screen.send("Ask about this book", "What did Alice see running close by her, with pink eyes?")
            screen.wait_text("pink eyes ran close by her", timeout=30_000)
            _not_blank(screen.shot("6-chat"))
            _fields_named(page, "the chat")
            screen.click_label("Close")
            screen.click_label("Library")
            screen.click_label("All notes")
            screen.wait_text("1 highlight")
            _buttons_named(page, "the notes screen")  # its cards' colour and delete buttons included
            screen.click_label("Library")
            screen.click_label("Settings")
            screen.wait_text("AI assistant")
            _not_blank(screen.shot("7-settings"))
            page.close()
            settings.write_text(json.dumps({"layout": "scroll"}), encoding="utf-8")
            page = browser.new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
            screen = Screen(page, f"tour-{size}").open(url)
            screen.click_label_until("Open Alice", "% read")
            _not_blank(screen.shot("8-reader-scroll"))
            page.close()


def test_a_jump_then_the_library_leaves_the_furthest_place_where_reading_left_it(browser, tmp_path: Path) -> None:
    """The repro from the trust issue, in the browser at both sizes: open a book read to 3.2, jump ahead with the
    contents, go to the library. The furthest place (the spoiler bound, "% read") once became the jumped-to place."""
    library = tmp_path / "lib"
    quire = Quire(library)
    quire.import_paths([book_path("en/epubjs-alice.epub")])
    quire.save_position(1, "3.2")  # read up to here
    read = quire.position(1)
    quire.close()
    with app_server(library) as url:
        for size, viewport in TOUR_SIZES.items():
            phone = size == "phone"
            page = browser.new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
            screen = Screen(page, f"fence-{size}").open(url)
            screen.click_label_until("Open Alice", "% read")
            if phone:
                screen.click_label("Contents")
            screen.click_text("Pig And Pepper")  # a later chapter
            _wait_place(screen, library, "Pig And Pepper")
            if not phone:
                screen.click_label("Close")
            screen.click_label("Library")
            screen.wait_text("1 book")
            after = Quire(library)
            try:
                position = after.position(1)
                assert position.furthest == read.furthest and position.furthest_percent == read.furthest_percent
                assert position.ordinal > read.ordinal  # the current place is where the reader jumped to
            finally:
                after.close()
            page.close()


def test_scroll_layout_reads_on_past_the_window_without_a_button(browser, tmp_path: Path) -> None:
    """Scroll layout stopped behind "Continue reading" (issue 25, item 3): scrolling with the wheel reads on into
    chapters past the first window of 80 paragraphs, and the place read follows."""
    library = tmp_path / "lib"
    quire = Quire(library)
    quire.import_paths([book_path("en/epubjs-alice.epub")])
    quire.close()
    (library / "settings.json").write_text(json.dumps({"layout": "scroll"}), encoding="utf-8")
    with app_server(library) as url:
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        screen = Screen(page, "scroll-on").open(url)
        screen.click_label_until("Open Alice", "% read")
        page.mouse.move(720, 450)
        for _ in range(150):  # a reader's wheel, most of a screen at a time
            if _ordinal(library, 1) > 90:  # the place saved: past the first window of 80 paragraphs
                break
            assert not screen.shows("Continue reading")
            page.mouse.wheel(0, 600)
            screen.quiet()  # the scroll landed
        assert _ordinal(library, 1) > 90  # read on, and the place saved went on with the scrolling
        _not_blank(screen.shot("1-read-on-past-the-window"))
        page.close()


def test_the_browsers_back_closes_the_book_and_forward_opens_it_at_both_sizes(browser, tmp_path: Path) -> None:
    """A phone browser's edge swipe is its back button: it once left Quire for about:blank. Each screen is now a
    history entry, so back returns to the library (the place saved) and forward to the book."""
    library = tmp_path / "lib"
    quire = Quire(library)
    quire.import_paths([book_path("en/epubjs-alice.epub")])
    quire.save_position(1, "5.3")
    quire.close()
    with app_server(library) as url:
        for size, viewport in TOUR_SIZES.items():
            phone = size == "phone"
            page = browser.new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
            screen = Screen(page, f"history-{size}").open(url)
            screen.click_label_until("Open Alice", "% read")
            page.wait_for_url("**/book/1", timeout=20_000)
            screen.labelled("Library").wait_for(state="visible", timeout=20_000)  # the reader's way back
            page.go_back()
            screen.wait_text("1 book")  # the library again, not about:blank
            assert page.url.rstrip("/") == url.rstrip("/") and not screen.labelled("Library").is_visible()
            page.go_forward()
            screen.labelled("Library").wait_for(state="visible", timeout=20_000)
            page.wait_for_url("**/book/1", timeout=20_000)
            page.close()
            page = browser.new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
            screen = Screen(page, f"history-{size}-address").open(url.rstrip("/") + "/book/1")
            screen.labelled("Library").wait_for(state="visible", timeout=20_000)  # the address opened the book
            page.close()


def test_read_aloud_plays_pauses_and_stops_in_the_browser_at_both_sizes(browser, tmp_path: Path) -> None:
    """Issue 29: the headphones button reads aloud (eSpeak NG into WAV files in real time: this machine has no
    sound), the bar pauses and resumes, and stopping keeps the place in the chapter being read."""
    debian_file("/usr/bin/espeak-ng", "espeak-ng")
    library = tmp_path / "lib"
    quire = Quire(library)
    quire.import_paths([book_path("en/epubjs-alice.epub")])
    quire.save_position(1, "3.2")
    quire.close()
    (library / "settings.json").write_text(json.dumps({"speech_rate": 400}), encoding="utf-8")
    for size, viewport in TOUR_SIZES.items():
        audio = tmp_path / f"audio-{size}"
        with app_server(library, env={"QUIRE_SPEECH_TO": str(audio)}) as url:
            phone = size == "phone"
            page = browser.new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
            screen = Screen(page, f"aloud-{size}").open(url)
            screen.click_label_until("Open Alice", "% read")
            screen.click_label("Read aloud from here")
            screen.labelled("Pause").wait_for(state="visible", timeout=20_000)
            screen.until(
                lambda audio=audio: len(list(audio.glob("*.wav"))) >= 2, "two sentences spoken, one file each", 20
            )
            _not_blank(screen.shot("1-reading-aloud"))
            screen.click_label("Pause")
            screen.labelled("Resume").wait_for(state="visible", timeout=20_000)
            screen.click_label("Resume")
            screen.labelled("Pause").wait_for(state="visible", timeout=20_000)
            screen.click_label("Stop reading aloud")
            screen.labelled("Read aloud from here").wait_for(state="visible", timeout=20_000)
            page.close()
        reopened = Quire(library)
        try:
            assert reopened.position(1).locator.section == 3  # stopped in the chapter it was reading
        finally:
            reopened.close()


def test_a_catalog_is_browsed_and_a_book_downloaded_in_the_browser_at_both_sizes(browser, tmp_path: Path) -> None:
    """Issue 30: Settings › Catalogs › Browse opens an OPDS catalog (a local server here; tests/test_opds.py drives
    calibre's own), a navigation entry leads to its books with their covers, and Download puts one in the library."""
    import zipfile

    from httpkit import LocalServer, Reply

    cover = zipfile.ZipFile(book_path("en/epubjs-alice.epub")).read("OPS/images/cover_th.jpg")
    atom = '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Shelf</title><id>s</id>{}</feed>'
    root = atom.format(
        "<entry><title>All books</title><id>all</id>"
        '<link type="application/atom+xml;profile=opds-catalog;kind=acquisition" href="/all"/></entry>'
    )
    books = atom.format("".join(
        f'<entry><title>{title}</title><id>urn:{name}</id><author><name>{author}</name></author>'
        f'<link rel="http://opds-spec.org/acquisition" type="application/epub+zip" href="/{name}.epub"/>'
        f'<link rel="http://opds-spec.org/image/thumbnail" type="image/jpeg" href="/{name}.jpg"/></entry>'
        for name, title, author in (("alice", "Alice's Adventures in Wonderland", "Lewis Carroll"),
                                    ("moby", "Moby-Dick", "Herman Melville"))))  # fmt: skip
    files = {"/opds": root.encode(), "/all": books.encode(), "/alice.jpg": cover, "/moby.jpg": cover,
             "/moby.epub": book_path("en/idpf-moby-dick.epub").read_bytes(),
             "/alice.epub": book_path("en/epubjs-alice.epub").read_bytes()}  # fmt: skip
    with LocalServer(lambda r: Reply(200, files[r.path.split("?")[0]])) as catalog:
        for size, viewport in TOUR_SIZES.items():
            library = tmp_path / f"lib-{size}"
            quire = Quire(library)
            quire.catalogs.add(f"{catalog.url}/opds")
            quire.close()
            with app_server(library) as url:
                phone = size == "phone"
                page = browser.new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
                screen = Screen(page, f"catalog-{size}").open(url)
                screen.wait_text("0 books")
                screen.click_label("Settings")
                screen.wait_text("AI assistant")
                page.mouse.move(viewport["width"] / 2, viewport["height"] / 2)
                for _ in range(40):  # Settings is long: the catalogs are below the fold
                    if screen.shows("Browse"):
                        break
                    page.mouse.wheel(0, 500)
                    screen.quiet()  # the scroll landed
                screen.click_text("Browse")
                screen.click_text("All books")
                screen.wait_text("Moby-Dick")
                screen.quiet()  # the covers come in after the list
                row = screen.labelled("Download “Moby-Dick”").bounding_box(timeout=20_000)  # the row, merged with it
                page.mouse.click(row["x"] + row["width"] - 24, row["y"] + row["height"] / 2)  # its button, at its end
                screen.until(lambda library=library: _count_books(library), "the downloaded book in the library", 30)
                screen.wait_text("is in your library")  # the notice: “Moby-Dick” is in your library.
                _not_blank(screen.shot("1-catalog"))
                page.close()
            reopened = Quire(library)
            try:
                assert [b.title for b in reopened.books()] == ["Moby-Dick"]
            finally:
                reopened.close()


def test_the_weekly_reading_chart_is_drawn_in_the_browser_at_both_sizes(browser, tmp_path: Path) -> None:
    """Issue 29: the statistics screen's weekly chart is flet-charts' BarChart, which the served web client draws:
    this week's bar stands as tall as the chart at both sizes (the unit tests only see the control's values)."""
    library = tmp_path / "lib"
    quire = Quire(library)
    quire.import_paths([book_path("en/epubjs-alice.epub")])
    for ordinal, seconds in ((20, 0), (30, 400), (40, 500)):
        quire.save_position(1, quire.text.segments(1, ordinal, 1)[0].locator, read_seconds=seconds)
    quire.close()
    with app_server(library) as url:
        for size, viewport in TOUR_SIZES.items():
            phone = size == "phone"
            page = browser.new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
            screen = Screen(page, f"stats-{size}").open(url)
            screen.click_label("Reading statistics")
            screen.wait_text("15 min read in 1 session, on 1 day; 1 day in a row now.")
            assert tallest_bar(screen.shot("weekly-chart")) >= 100  # the bar: 120 px, the chart's full height
            page.close()


def test_a_note_typed_with_spaces_leaves_the_page_behind_where_it_was(browser, tmp_path: Path) -> None:
    """Issue 36: each space typed into the note dialog turned a page of the book behind it (6% -> 12%). At both
    sizes (a narrow window with a mouse for the phone's: a double click selects a word there); the word is the first
    of the chapter's first paragraph, found by its node (the page's text carries its words for screen readers)."""
    library = tmp_path / "lib"
    quire = Quire(library)
    quire.import_paths([book_path("en/epubjs-alice.epub")])
    [chapter] = [row.locator for row in quire.text.toc(1) if row.title == "Down The Rabbit-Hole"]
    start = quire.text.ordinal_of(1, chapter)  # where the contents' jump leaves the reader
    quire.close()
    (library / "settings.json").write_text(json.dumps({"layout": "paginated"}), encoding="utf-8")
    with app_server(library) as url:
        for name, size in (("desktop", (1440, 900)), ("phone", (390, 844))):
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            screen = Screen(page, f"note-{name}").open(url)
            screen.click_label_until("Open Alice", "Contents")
            if not screen.box("Go to").count():  # a narrow window opens a book without its contents
                screen.click_label("Contents")
            screen.click_text("Down The Rabbit-Hole")
            # the jump saved: the phone's round opens the book where the desktop's turned a page, in the same chapter
            before = _wait_ordinal(screen, library, start)
            for _ in range(3):  # the paragraph's first word, once the page has stopped moving
                screen.quiet(hold=0.5)
                box = screen.text("Alice was beginning").bounding_box()
                page.mouse.dblclick(box["x"] + 12, box["y"] + 10)
                screen.quiet()  # the selection bar drawn, or nothing
                if screen.shows("Highlight and add a note") or screen.labelled("Highlight and add a note").count():
                    break
            _not_blank(screen.shot("selection-bar"))  # every action in reach (a phone's bar wraps)
            screen.click_label("Highlight and add a note")
            screen.type_into("Note", "one two three four five six")
            screen.quiet()  # whatever the typing set moving has landed
            assert _ordinal(library, 1) == before, "typing the note turned the pages behind it"
            _not_blank(screen.shot("typed"))
            _fields_named(page, "the note dialog")
            screen.click_text("Save")

            def noted() -> bool:
                quire = Quire(library)
                try:
                    return "one two three four five six" in [h.note for h in quire.notes.highlights(1)]
                finally:
                    quire.close()

            screen.until(noted, "the note saved", 20)
            assert _ordinal(library, 1) == before
            page.keyboard.press("ArrowRight")  # the dialog gone, the keys turn pages again
            screen.until(lambda before=before: _ordinal(library, 1) > before, "the next page's place saved", 10)
            page.close()


def test_text_typed_right_after_new_conversation_is_all_in_the_box_at_both_sizes(browser, tmp_path: Path) -> None:
    """Issue 36: after "New conversation" the letters typed went nowhere: the click took the keyboard from the box,
    Flet's focus() cannot give it back to a box where Shift+Enter makes a new line, and a click that landed as an
    answer's last redraw came was lost to a header drawn anew. With a mouse on the canvas, as most people use it
    (see MouseScreen); the places are found on a screen with its labels first."""
    library = tmp_path / "lib"
    Quire(library).import_paths([book_path("en/epubjs-alice.epub")])
    (library / "settings.json").write_text(json.dumps({"spoiler_protection": False, "local_only": True}))
    with app_server(library) as url:
        for name, size in (("desktop", (1440, 900)), ("phone", (390, 844))):
            _type_after_new_conversation(browser, url, library, name, size)


def _conversations(library: Path) -> list[list[tuple[str, str]]]:
    """Each conversation's messages about book 1 (who, and the question or the answer's status), the latest first."""
    from core.agent.threads_store import ChatStore

    quire = Quire(library)
    try:
        store = ChatStore(inside(quire).library)
        return [[(m.role, m.text if m.role == "user" else m.status) for m in store.messages(t.id)]
                for t in store.threads(1)]  # fmt: skip
    finally:
        quire.close()


def _latest(library: Path) -> list[tuple[str, str]]:
    return (_conversations(library) or [[]])[0]


def _type_after_new_conversation(browser, url: str, library: Path, name: str, size: tuple[int, int]) -> None:
    from browserkit import MouseScreen, centre

    labelled = browser.new_page(viewport={"width": size[0], "height": size[1]})
    screen = Screen(labelled, f"new-conversation-{name}").open(f"{url}book/1")
    screen.wait_text("Ask the book")
    reader = screen.shot("1-reader")
    where = {"chat": centre(screen.labelled("Ask the book"))}
    screen.click_label("Ask the book")
    screen.wait_text("New conversation")
    chat = screen.shot("2-chat")
    where["new"] = centre(screen.labelled("New conversation"))
    where["box"] = centre(screen.box("Ask about this book"))
    labelled.close()

    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    mouse = MouseScreen(page)
    page.goto(f"{url}book/1")
    mouse.until_like(reader, "the book to open")
    page.mouse.click(*where["chat"])
    mouse.until_like(chat, "the chat to open")
    page.mouse.click(*where["box"])
    until(lambda: mouse.focused_text() is not None, 10, "the box to take the keyboard")
    asked = sum(map(len, _conversations(library)))
    page.keyboard.type("Who is the Queen?")
    page.keyboard.press("Enter")
    answered = [("user", "Who is the Queen?"), ("assistant", "complete")]
    until(lambda: _latest(library)[-2:] == answered and sum(map(len, _conversations(library))) == asked + 2,
          30, "the first question answered")  # fmt: skip
    mouse.count_focus_moves()
    page.mouse.click(*where["new"])  # as soon as the answer is saved: its last redraw may be on its way
    # The click takes the keyboard from the box in the browser (Flutter's tap outside a field) a moment after the
    # button comes up, and the app gives it back once it has handled the click, a round trip later (150 ms with both
    # cores busy). Read straight after the click, the focus may not have left yet (a letter typed then was lost:
    # measured with a log of the focus events), so wait for it to leave and come back.
    until(mouse.field_given_back, 5, "the box to take the keyboard back")
    page.keyboard.type("Who is the Hatter?", delay=60)
    until(lambda: mouse.focused_text() == "Who is the Hatter?", 5, "every letter in the box")
    page.keyboard.press("Enter")
    until(lambda: _latest(library)[:1] == [("user", "Who is the Hatter?")], 30, "a conversation of its own")
    _not_blank(Screen(page, f"new-conversation-{name}").shot("3-typed"))  # its semantics tree stays off
    page.close()


def test_after_each_reader_panel_is_opened_and_closed_the_page_is_a_full_page_at_both_sizes(
    browser, tmp_path: Path
) -> None:
    """Issue 36: in the Pages layout, 61% into a story collection, Search opened and closed left a page of one line
    (next and previous came back to it). Not reproduced here on the code of stop 47 (Escape or the close button); this holds
    every panel to it at both sizes, each closed with its own close button: the page drawn after is as full as the
    one before (a line is a tenth of it)."""
    library = tmp_path / "lib"
    Quire(library).import_paths([book_path("en/idpf-childrens-literature.epub")])
    (library / "settings.json").write_text(json.dumps({"layout": "paginated"}), encoding="utf-8")
    with app_server(library) as url:
        for name, size in (("desktop", (1440, 900)), ("phone", (390, 844))):
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            screen = Screen(page, f"panels-{name}").open(f"{url}book/1")
            screen.wait_text("Contents")
            if not screen.box("Go to").count():  # a computer opens a book with its contents beside it
                screen.click_label("Contents")
            screen.type_into("Go to", "61%")
            page.keyboard.press("Enter")
            screen.wait_text("At 61%")
            if screen.box("Go to").count():
                screen.click_label("Close")
            full = ink(screen.shot("0-at-61"))
            assert full > 0.05, "the page at 61% is drawn full to begin with"
            for panel in ("Contents", "Search", "Notes", "X-Ray", "Appearance", "Ask the book"):
                screen.click_label(panel)
                screen.click_label("Close")
                screen.wait_text("At 61%")
                after = ink(screen.shot(f"after-{panel}"))
                assert after > 0.8 * full, f"after {panel} the page holds {after / full:.0%} of what it held"
            page.close()


def test_settings_keeps_its_place_has_folders_and_names_every_field_at_both_sizes(browser, tmp_path: Path) -> None:
    """Issue 36: "Add catalog" jumped Settings back to its top; the browser's Settings had no Folders; fields and
    selectable texts had no name for a screen reader."""
    from browserkit import free_port

    library = tmp_path / "lib"
    Quire(library).import_paths([book_path("en/epubjs-alice.epub")])
    unnamed = UNNAMED_FIELDS
    with app_server(library) as url:
        for name, size in (("desktop", (1440, 900)), ("phone", (390, 844))):
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            screen = Screen(page, f"settings-{name}").open(url)
            screen.click_label_until("Settings", "Reading")
            _scroll_to(screen, "Add catalog")  # Settings draws what is in sight: wheel down to the catalogs
            assert page.evaluate(unnamed) == 0
            screen.type_into("Catalog address", f"http://127.0.0.1:{free_port()}/opds")  # nothing listens there
            assert page.evaluate(unnamed) == 0  # a field holding text keeps its name
            screen.quiet(hold=0.5)  # the field scrolled into sight as it took the focus
            top = screen.text("Add catalog").bounding_box()["y"]
            assert 0 < top < size[1], "the button is in sight before the click"
            screen.click_text("Add catalog")
            screen.wait_text("could not be used", timeout=30_000)
            screen.quiet(hold=0.5)  # had Settings jumped, it has landed
            assert abs(screen.text("Add catalog").bounding_box()["y"] - top) < 40, "Settings jumped to its top"
            _not_blank(screen.shot("after-add-catalog"))
            _scroll_to(screen, "Import this folder")  # Settings > Folders in the browser, the path typed
            assert screen.shows("Watch this folder") and page.evaluate(unnamed) == 0
            page.close()


def _scroll_to(screen: Screen, label: str) -> None:
    """Wheel the screen down until a node labelled ``label`` is in sight (a list draws only what is in sight)."""
    for _ in range(40):
        if screen.shows(label):
            box = screen.text(label).bounding_box()
            if box and 60 < box["y"] < screen.page.viewport_size["height"] - 120:
                return
        screen.page.mouse.move(screen.page.viewport_size["width"] / 2, screen.page.viewport_size["height"] / 2)
        screen.page.mouse.wheel(0, 200)
        screen.quiet()  # the scroll landed
    screen.wait_text(label, timeout=1)  # fails with the screen's labels


def test_chinese_is_drawn_at_first_paint_without_waiting_for_the_full_cjk_font(browser, tmp_path: Path) -> None:
    """Issue 39: the first library screen showed 呐喊 and 鲁迅 as boxes for seconds, until the 19 MB CJK font came;
    issue 60: loading all of it before the first frame made the start twice a bare Flet app's.

    On a connection of 4 MB/s the screen is photographed as fast as the browser allows from the moment the page is
    asked for. Before the first CJK font (the 1.6 MB cut) has arrived nothing is drawn (the splash at most); the
    library is drawn before the full font has arrived; and its top band, drawn then, is the same pixels as after
    the full font came: no box was drawn in place of a character, and no character changed its shape.
    """
    from io import BytesIO

    from PIL import Image

    from app.look.fonts import CJK_FILE, CJK_FIRST_ASSET

    library = tmp_path / "lib"
    Quire(library).import_paths([book_path("formats/luxun-nahan.azw3")])
    with app_server(library, env={"XDG_CACHE_HOME": str(tmp_path / "cache")}) as url:  # the served folder, fresh
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        conditions = {"offline": False, "latency": 20, "downloadThroughput": 4_000_000, "uploadThroughput": -1}
        cdp.send("Network.emulateNetworkConditions", conditions)
        arrived: dict[str, float] = {}
        first_name, full_name = CJK_FIRST_ASSET.rsplit("/", 1)[-1], CJK_FILE

        def finished(request) -> None:
            for name in (first_name, full_name):
                if request.url.endswith(name):
                    arrived.setdefault(name, time.monotonic())

        page.on("requestfinished", finished)
        page.goto(url, wait_until="commit")
        frames: list[tuple[float, bytes]] = []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not (full_name in arrived and frames[-1][0] > arrived[full_name] + 3):
            try:
                shot = page.screenshot()
            except PlaywrightError:  # the page has nothing to photograph yet, in its first moments
                continue
            frames.append((time.monotonic(), shot))
        assert first_name in arrived and full_name in arrived, f"fonts asked for and received: {arrived}"

        def band(shot: bytes, name: str) -> Path:
            path = ARTIFACTS / f"cjk-font-{name}.png"
            with Image.open(BytesIO(shot)) as image:  # the app bar and the first row of cards; the splash is lower
                image.crop((0, 0, image.width, 300)).save(path)
            return path

        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        early = [shot for stamp, shot in frames if stamp < arrived[first_name]]
        assert len(early) > 5, "too few photographs before the first font arrived to tell"
        for shot in early:
            assert ink(band(shot, "early")) == 0, "drawn before the first CJK font arrived (see cjk-font-early.png)"
        before_full = [shot for stamp, shot in frames if stamp < arrived[full_name]]
        assert ink(band(before_full[-1], "before-full")) > 0.01, "the library waited for the full CJK font"
        after_full = frames[-1][1]
        with Image.open(band(before_full[-1], "before-full")) as drawn, Image.open(band(after_full, "after")) as later:
            assert drawn.tobytes() == later.tobytes(), "see cjk-font-before-full.png and cjk-font-after.png"
        screen = Screen(page, "slow-font")
        page.wait_for_selector("flt-semantics-placeholder", state="attached", timeout=60_000)
        page.evaluate("document.querySelector('flt-semantics-placeholder')?.click()")
        screen.wait_text("鲁迅")
        page.close()


def test_the_library_search_finds_passages_and_asks_every_book_at_both_sizes(browser, tmp_path: Path) -> None:
    """Issue 57: the library's search finds passages in the books' text (each book only as far as it was read), a
    passage opens its book there, and "Ask your library" answers offline with a citation that opens its book."""
    library = tmp_path / "lib"
    quire = Quire(library)
    quire.import_paths([book_path("en/epubjs-alice.epub"), book_path("en/standardebooks-pride-and-prejudice.epub")])
    quire.save_position(1, "7.5")  # Advice From A Caterpillar: the Cheshire Cat comes in the next chapter
    quire.close()
    with app_server(library) as url:
        for size, viewport in TOUR_SIZES.items():
            phone = size == "phone"
            page = browser.new_page(viewport=viewport, is_mobile=phone, has_touch=phone)
            screen = Screen(page, f"library-text-{size}").open(url)
            screen.type_into("Search titles, authors and text", "Cheshire")
            screen.wait_text("Nothing you have read in your books matches.")  # fenced: a later chapter
            screen.type_into("Search titles, authors and text", "DRINK ME")
            screen.wait_text("In the books' text")
            screen.wait_text("Alice's Adventures in Wonderland · Down The Rabbit-Hole")
            _not_blank(screen.shot("1-passages"))
            screen.click_text("Alice's Adventures in Wonderland · Down The Rabbit-Hole")
            _wait_place(screen, library, "Down The Rabbit-Hole")  # the book opened at the passage
            screen.wait_text("Ask the book")
            if not phone:
                screen.click_label("Close")
            screen.click_label("Library")
            screen.type_into("Search titles, authors and text", "What did the bottle say on its label?")
            screen.click_text("Ask your library")
            screen.wait_text("[1] Alice's Adventures in Wonderland", timeout=30_000)
            _not_blank(screen.shot("2-library-answer"))
            screen.click_label("[1] Alice's Adventures in Wonderland")
            screen.wait_text("Ask the book")  # the citation closed the dialog and opened its book
            _wait_place(screen, library, "Down The Rabbit-Hole")
            page.close()
            reset = Quire(library)
            reset.save_position(1, "7.5")  # the next size starts where this one did
            reset.close()
