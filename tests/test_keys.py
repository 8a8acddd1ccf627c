"""The keyboard's router: a dialog or a focused text field owns the keys; the reader turns pages only without them.

Each test types into a real field (client-less Flet session, events fired as the client fires them) with a book
open behind it, and checks the page did not move; then that the same key turns the page once the field or the
dialog is gone.
"""

import asyncio

import flet as ft
from browserkit import free_port
from conftest import book_path
from flet.messaging.protocol import MessageAction
from fletkit import clickable, find, fire, new_session, set_value, texts, type_into, walk

from app.keys import dialog_open, field_focused
from app.screens.reader.navigation import GoTo
from app.shell import QuireApp
from core import Locator
from core.services import Quire
from platform_adapters.memory import MemorySecrets


async def _key(session, key: str) -> None:
    await fire(
        session,
        session.page,
        "keyboard_event",
        {"key": key, "ctrl": False, "shift": False, "alt": False, "meta": False},
    )


async def _type(session, text: str) -> None:
    for letter in text:
        await _key(session, letter)


def _fields(root: object) -> list[ft.TextField]:
    return [c for c in walk(root) if isinstance(c, ft.TextField)]


def _reading(quire: Quire, width: int) -> tuple:
    quire.import_paths([book_path("en/epubjs-alice.epub")])

    async def opened():
        session = await new_session(width, 900)
        app = QuireApp(session.page, quire, secrets=MemorySecrets())
        app.settings.layout = "paginated"
        app.render()
        app.open_book(1)
        app.reading.navigate(GoTo(Locator(3, 0)))  # the first chapter's text, pages to turn either way
        return session, app

    return opened


def test_a_note_typed_in_its_dialog_leaves_the_page_where_it_was(quire: Quire) -> None:
    async def scenario() -> None:
        session, app = await _reading(quire, 1440)()
        app.reading.open_panel(None)  # the text alone: nothing but the dialog can take the keys
        before = app.reader.current.ordinal
        text = next(c for c in walk(app.page.controls) if isinstance(c, ft.Text) and c.on_selection_change and c.value)
        await fire(
            session,
            text,
            "selection_change",
            {"selected_text": "", "selection": {"base_offset": 0, "extent_offset": 5}},
        )
        await fire(session, find(app.page.controls, tooltip="Highlight and add a note"))
        assert dialog_open(session.page)
        dialog = session.page._dialogs.controls[-1]
        [field] = _fields(dialog)
        await fire(session, field, "focus")
        await _type(session, "one two three four five six")
        await _key(session, "Arrow Right")
        assert app.reader.current.ordinal == before  # not a page for each space
        field.value = "one two three four five six"
        await fire(session, clickable(dialog, "Save"))
        assert quire.notes.highlights(1)[0].note == "one two three four five six" and not dialog_open(session.page)
        await _key(session, " ")  # the dialog gone, Space turns the page again
        assert app.reader.current.ordinal > before

    asyncio.run(scenario())


def test_every_field_beside_the_text_keeps_its_keys_at_both_sizes(quire: Quire) -> None:
    async def scenario(width: int) -> None:
        session, app = await _reading(quire, width)()
        for panel in ("toc", "search", "notes", "chat"):
            app.reading.panel = None
            app.reading.open_panel(panel)
            for field in _fields(app.page.controls):
                before = app.reader.current.ordinal
                await fire(session, field, "focus")
                assert field_focused(session.page)
                await _type(session, "a b c")
                await _key(session, "Page Down")
                assert app.reader.current.ordinal == before, f"a key typed into {panel}'s field turned the page"
                await fire(session, field, "blur")
            app.reading.open_panel(None)
        before = app.reader.current.ordinal
        await _key(session, "Arrow Right")
        assert app.reader.current.ordinal > before

    asyncio.run(scenario(1440))
    asyncio.run(scenario(390))


def test_a_field_taken_off_the_page_while_focused_gives_the_keys_back(quire: Quire) -> None:
    async def scenario() -> None:
        session, app = await _reading(quire, 1440)()
        assert app.panel == "toc"  # open beside the text on a wide window
        [go_to] = _fields(app.page.controls)  # the contents' "go to" field
        await fire(session, go_to, "focus")
        await _key(session, "Escape")  # Escape from a field closes its panel (the field goes with it, no blur sent)
        assert app.panel is None and app.screen == "reader" and not field_focused(session.page)
        before = app.reader.current.ordinal
        await _key(session, "Arrow Right")
        assert app.reader.current.ordinal > before

    asyncio.run(scenario())


def test_escape_in_a_settings_field_keeps_the_screen_and_what_was_typed(quire: Quire) -> None:
    async def scenario() -> None:
        session = await new_session(1440, 900)
        app = QuireApp(session.page, quire, secrets=MemorySecrets())
        app.go("settings")
        field = _fields(app.page.controls)[0]
        await fire(session, field, "focus")
        await _key(session, "Escape")
        assert app.screen == "settings"
        await fire(session, field, "blur")
        await _key(session, "Escape")
        assert app.screen == "library"

    asyncio.run(scenario())


def test_text_typed_in_settings_survives_a_switch_flipped_elsewhere_and_the_list_keeps_its_place(
    quire: Quire,
) -> None:
    """Issue 36: any switch in Settings drew the whole screen anew: the list went back to its top, and text typed
    and not saved in another section (a sync address, a catalog's) was gone. Settings is drawn on Flet's
    declarative layer now, each field's text kept in the screen's form; opened anew, the form is empty again."""

    async def scenario() -> None:
        session = await new_session(1440, 900)
        app = QuireApp(session.page, quire, secrets=MemorySecrets())
        app.go("settings")

        def on_screen() -> list:
            return list(walk(app.page.controls))

        [listing] = [c for c in on_screen() if isinstance(c, ft.ListView)]
        target = next(c for c in on_screen() if isinstance(c, ft.TextField) and c.label == "WebDAV address or folder")
        await type_into(session, target, "https://dav.example.org/quire")
        catalog = next(c for c in on_screen() if isinstance(c, ft.TextField) and c.label == "Catalog address (OPDS)")
        nowhere = f"http://127.0.0.1:{free_port()}/opds"  # nothing listens there
        await type_into(session, catalog, nowhere)
        sent = len(session.connection.sent)
        local_only = next(c for c in on_screen() if isinstance(c, ft.Switch) and c.label.startswith("Local only"))
        await set_value(session, local_only, True, "change")
        assert app.settings.local_only and quire.local_only  # saved and applied
        shown = on_screen()
        assert [c._i for c in shown if isinstance(c, ft.ListView)] == [listing._i]  # the same list: its scroll kept
        fields = {c.label: c for c in shown if isinstance(c, ft.TextField)}
        assert fields["WebDAV address or folder"].value == "https://dav.example.org/quire"
        assert fields["WebDAV address or folder"]._i == target._i
        assert fields["Catalog address (OPDS)"].value == nowhere
        replaced = [m.body for m in session.connection.sent[sent:] if m.action == MessageAction.PATCH_CONTROL]
        assert all(body.id != app.page._i for body in replaced)  # no new screen
        assert b"dav.example.org" not in b"".join(session.connection.wire[sent:])  # the typed text is not sent back
        await fire(session, clickable(app.page.controls, "Add catalog"))
        said = app.message
        assert "could not be used" in said and said in texts(app.page.controls)  # the section's line
        language = next(c for c in on_screen() if isinstance(c, ft.Dropdown) and c.value == "system")
        await set_value(session, language, "zh", "select")
        assert said not in texts(app.page.controls)  # a line in the other language is not left behind
        assert next(c for c in on_screen() if isinstance(c, ft.TextField) and c.label == "书目地址（OPDS）").value
        app.go("library")
        app.go("settings")
        fields = {c.label: c for c in on_screen() if isinstance(c, ft.TextField)}
        assert fields["WebDAV 地址或文件夹"].value == ""  # opened anew: what was not saved is gone

    asyncio.run(scenario())
