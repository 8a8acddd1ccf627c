"""The settings screen: reading defaults and theme, interface language, and the AI provider section."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import flet as ft

from app.a11y import IconButton
from app.i18n import Translator
from app.jobs import IndexLine
from app.screens.settings.catalogs import CatalogsController, catalog_settings
from app.screens.settings.dictionaries import DictionarySettings, dictionary_controls
from app.screens.settings.folders import FolderWatch, folder_controls
from app.screens.settings.form import SettingsForm
from app.screens.settings.highlights import HighlightTravel, travel_controls
from app.screens.settings.intents import Back, Redraw, Saved, SettingsIntent
from app.screens.settings.koreader import KoreaderSync, koreader_controls
from app.screens.settings.sync import SyncController
from app.settings import FONTS, LAYOUTS, THEMES, WRITINGS, Settings, SettingsStore
from core import DEFAULT_BASE_URLS, PROVIDERS, REMOTE_EMBEDDERS, ProviderConfig, Quire, QuireError


def reading_controls(settings: Settings, changed: Callable[[], object], t: Translator) -> list[ft.Control]:
    """Theme, font, size, spacing, margins and layout; each change is saved and shown at once."""

    def setter(name: str, convert: Callable[[Any], object] = lambda v: v) -> Callable[[ft.Event[Any]], None]:
        def handle(e: ft.Event[Any]) -> None:
            value = e.control.selected[0] if isinstance(e.control, ft.SegmentedButton) else e.control.value
            setattr(settings, name, convert(value))
            changed()

        return handle

    def segmented(name: str, choices: tuple[str, ...], label: str) -> ft.Control:
        return ft.SegmentedButton(
            segments=[ft.Segment(value=c, label=ft.Text(t(f"{label}.{c}"))) for c in choices],
            selected=[getattr(settings, name)],
            on_change=setter(name),
            show_selected_icon=False,
        )

    def slider(name: str, low: float, high: float, steps: int, label: str) -> ft.Control:
        return ft.Column(
            [
                ft.Text(f"{t(label)}: {getattr(settings, name)}"),
                ft.Slider(
                    value=getattr(settings, name),
                    min=low,
                    max=high,
                    divisions=steps,
                    on_change_end=setter(name, lambda v: round(float(v), 1)),
                ),
            ],
            spacing=0,
        )

    return [
        ft.Text(t("settings.theme"), weight=ft.FontWeight.W_600),
        segmented("theme", THEMES, "settings.theme"),
        slider("font_size", 12, 32, 20, "settings.font_size"),
        slider("line_height", 1.2, 2.2, 10, "settings.line_height"),
        slider("margins", 0, 96, 12, "settings.margins"),
        ft.Text(t("settings.font"), weight=ft.FontWeight.W_600),
        segmented("font_family", FONTS, "settings.font"),
        ft.Text(t("settings.layout"), weight=ft.FontWeight.W_600),
        segmented("layout", LAYOUTS, "settings.layout"),
        ft.Text(t("settings.writing"), weight=ft.FontWeight.W_600),
        segmented("writing", WRITINGS, "settings.writing"),
        switch(settings, changed, t, "name_links", "settings.name_links"),
    ]


@dataclass
class AIActions:
    """What the AI section needs from the shell: background work and its progress."""

    test_connection: Callable[[ProviderConfig, Callable[[str, bool], None]], None]  # reports (message, ok)
    download: Callable[[str], object]  # an embedding model by name
    start_index: Callable[[int], None]
    cancel_index: Callable[[int], None]
    index_line: Callable[[int], IndexLine]  # a book's index status line, whether it is running
    progress: Callable[[str], str]  # a model's download progress line ("" when none)


def provider_controls(
    settings: Settings,
    store: SettingsStore,
    changed: Callable[[], object],
    t: Translator,
    actions: AIActions | None,
    form: SettingsForm,
    redraw: Callable[[], object],
) -> list[ft.Control]:
    """Provider, model, endpoint, temperature and key; the key field says only whether a key is stored. What is
    typed and chosen waits in ``form`` until saved; "None" shows nothing else to set."""
    current = settings.provider_config()
    chosen = form.chosen.get("provider.kind", current.kind if current else "none")

    def choose_kind(e: ft.Event[Any]) -> None:
        form.chosen["provider.kind"] = e.control.value or "none"
        redraw()

    def set_temperature(e: ft.Event[Any]) -> None:
        form.chosen["provider.temperature"] = str(round(float(e.control.value or 0.0), 1))

    kind = ft.Dropdown(
        label=t("settings.provider"),
        value=chosen,
        options=[ft.DropdownOption(key="none", text=t("settings.provider.none"))]
        + [ft.DropdownOption(key=k, text=t(f"settings.provider.{k}")) for k in PROVIDERS],
        on_select=choose_kind,
        width=320,
    )
    has_key = bool(current and store.has_key(current))

    def temperature() -> float:  # read when used: the slider moves without drawing the screen again
        return float(form.chosen.get("provider.temperature", current.temperature if current else 0.3))

    def report(message: str, ok: bool = True) -> None:
        form.say("provider", message, ok)
        redraw()

    def save(e: ft.Event[Any]) -> None:
        try:
            choose()
        except QuireError as error:  # e.g. no keyring to keep the key in: say so, keep the rest
            report(t.error(error), ok=False)
            return
        form.forget("provider.key")
        form.lines.pop("provider", None)
        changed()

    def choose() -> None:
        if chosen in ("", "none"):
            settings.provider = {}
            store.save(settings)
            return
        config = ProviderConfig(
            kind=chosen,
            model=form.text("provider.model", current.model if current else "").strip(),
            base_url=form.text("provider.base_url", current.base_url if current else "").strip(),
            temperature=temperature(),
        )
        store.set_provider(settings, config, form.text("provider.key").strip() or None)

    def test(e: ft.Event[Any]) -> None:
        try:
            choose()
        except QuireError as error:
            report(t.error(error), ok=False)
            return
        config = settings.provider_config()
        if config is None or actions is None:
            report(t("settings.provider.none"), ok=False)
            return
        report(t("settings.testing"))
        actions.test_connection(config, report)

    def forget_key(e: ft.Event[Any]) -> None:
        if current is not None:
            try:
                store.secrets.delete(current.secret_name)
            except QuireError as error:
                report(t.error(error), ok=False)
                return
        changed()

    some = chosen not in ("", "none")  # "None": nothing to set, nothing to test
    buttons: list[ft.Control] = [
        ft.FilledButton(t("settings.provider.save"), icon=ft.Icons.SAVE, on_click=save),
        ft.OutlinedButton(t("settings.test"), icon=ft.Icons.NETWORK_CHECK, on_click=test, visible=some),
    ]
    if has_key:
        buttons.append(ft.TextButton(t("settings.api_key.remove"), icon=ft.Icons.KEY_OFF, on_click=forget_key))
    return [
        kind,
        form.field(
            "provider.model", current.model if current else "", label=t("settings.model"), width=320, visible=some
        ),
        form.field(
            "provider.base_url",
            current.base_url if current else "",
            label=t("settings.base_url"),
            hint_text=DEFAULT_BASE_URLS.get(chosen, ""),
            width=320,
            visible=some,
        ),
        ft.Text(t("settings.temperature"), size=12, visible=some),
        ft.Slider(
            value=temperature(),
            min=0,
            max=1,
            divisions=10,
            label="{value}",
            width=320,
            on_change=set_temperature,
            visible=some,
        ),
        form.field(
            "provider.key",
            label=t("settings.api_key"),
            password=True,
            can_reveal_password=True,
            hint_text=t("settings.api_key.saved") if has_key else t("settings.api_key.missing"),
            width=320,
            visible=some,
        ),
        ft.Row(buttons, wrap=True),
        form.line("provider", t("settings.api_key.saved") if has_key else ""),
    ]


def switch(settings: Settings, changed: Callable[[], object], t: Translator, name: str, label: str) -> ft.Control:
    """A switch bound to one boolean setting, saved on change."""

    def handle(e: ft.Event[Any]) -> None:
        setattr(settings, name, bool(e.control.value))
        changed()

    return ft.Switch(label=t(label), value=getattr(settings, name), on_change=handle)


def phone_switches(settings: Settings, changed: Callable[[], object], t: Translator) -> list[ft.Control]:
    """What only a phone can do while reading: keep the screen on, tick on page turns."""
    return [
        switch(settings, changed, t, "keep_screen_on", "settings.keep_screen_on"),
        switch(settings, changed, t, "haptic_page_turns", "settings.haptic_page_turns"),
    ]


def switches(settings: Settings, changed: Callable[[], object], t: Translator) -> list[ft.Control]:
    return [
        switch(settings, changed, t, "local_only", "settings.local_only"),
        switch(settings, changed, t, "spoiler_protection", "settings.spoilers"),
        switch(settings, changed, t, "auto_index", "settings.auto_index"),
    ]


def remote_embedding_controls(
    settings: Settings,
    store: SettingsStore,
    changed: Callable[[], object],
    t: Translator,
    form: SettingsForm,
    redraw: Callable[[], object],
) -> list[ft.Control]:
    """On-device models (the default), or an OpenAI-compatible or Ollama embedding endpoint (an endpoint, a model
    and a key only for a remote service: on this device there is nothing to set)."""
    current = settings.embedding
    chosen = form.chosen.get("embedding.kind", current.get("kind", "device"))

    def choose_kind(e: ft.Event[Any]) -> None:
        form.chosen["embedding.kind"] = e.control.value or "device"
        redraw()

    kind = ft.Dropdown(
        label=t("settings.embedder"),
        value=chosen,
        options=[ft.DropdownOption(key="device", text=t("settings.embedder.device"))]
        + [ft.DropdownOption(key=name, text=t(f"settings.embedder.{name}")) for name in REMOTE_EMBEDDERS],
        on_select=choose_kind,
    )

    def save(e: ft.Event[Any]) -> None:
        remote = "" if chosen == "device" else chosen
        try:
            store.set_embedding(settings, remote, form.text("embedding.model", current.get("model", "")).strip(),
                                form.text("embedding.base_url", current.get("base_url", "")).strip(),
                                form.text("embedding.key").strip() or None)  # fmt: skip
        except QuireError as error:
            form.say("embedding", t.error(error), ok=False)
            redraw()
            return
        form.forget("embedding.key")
        form.lines.pop("embedding", None)
        changed()

    remote = chosen != "device"
    return [
        kind,
        form.field("embedding.model", current.get("model", ""), label=t("settings.model"), visible=remote),
        form.field("embedding.base_url", current.get("base_url", ""), label=t("settings.base_url"), visible=remote),
        form.field(
            "embedding.key", label=t("settings.api_key"), password=True, can_reveal_password=True, visible=remote
        ),
        ft.FilledButton(t("settings.embedder.save"), icon=ft.Icons.SAVE, on_click=save),
        form.line("embedding"),
    ]


def embedding_controls(quire: Quire, t: Translator, actions: AIActions) -> list[ft.Control]:
    """On-device models (download the missing ones) and each book's index (start, cancel, retry)."""
    rows: list[ft.Control] = [ft.Text(t("settings.models"), weight=ft.FontWeight.W_600)]
    for model in quire.models.status():
        languages = ("、" if t.language == "zh" else ", ").join(t(f"settings.model.lang.{c}") for c in model.languages)
        line = actions.progress(model.name) or (
            t("settings.model.ready") if model.available else t("settings.model.missing")
        )
        trailing = (
            None
            if model.available
            else ft.TextButton(
                t("settings.model.download"),
                icon=ft.Icons.DOWNLOAD,
                on_click=lambda e, name=model.name: actions.download(name),
            )
        )
        rows.append(
            ft.ListTile(
                title=ft.Text(t("settings.model.for", languages=languages), size=13),
                subtitle=ft.Text(f"{line} · {model.name}", size=12),  # the name, for those who look it up
                trailing=trailing,
                dense=True,
            )
        )
    rows.append(ft.Text(t("settings.books_index"), weight=ft.FontWeight.W_600))
    for book in quire.books():
        line, running, _ = actions.index_line(book.id)
        button = (
            ft.TextButton(t("chat.index.cancel"), on_click=lambda e, b=book.id: actions.cancel_index(b))
            if running
            else ft.TextButton(t("chat.index.start"), on_click=lambda e, b=book.id: actions.start_index(b))
        )
        rows.append(
            ft.ListTile(
                title=ft.Text(book.title, size=13, max_lines=1),
                subtitle=ft.Text(line, size=12),
                trailing=button,
                dense=True,
            )
        )
    return rows


# Languages a paragraph can be translated into, each named in itself.
TRANSLATION_TARGETS = (("en", "English"), ("zh", "中文"), ("ja", "日本語"), ("ko", "한국어"), ("fr", "Français"),
                       ("de", "Deutsch"), ("es", "Español"), ("it", "Italiano"), ("pt", "Português"),
                       ("ru", "Русский"))  # fmt: skip


@dataclass(frozen=True, slots=True)
class Sections:
    """The sections this device offers beside the reading, language and AI ones (None: not offered here)."""

    sync: SyncController | None = None
    dictionaries: DictionarySettings | None = None
    catalogs: CatalogsController | None = None
    koreader: KoreaderSync | None = None
    folders: FolderWatch | None = None  # computers only: a path typed in a phone's Settings means nothing
    travel: HighlightTravel | None = None


@dataclass(frozen=True, slots=True)
class SettingsScreen:
    """What Settings is drawn from: the shared settings and what is typed and not saved (``form``, kept across
    drawings), the window, the sections offered, and ``post``, where the view's intents go (its controller)."""

    settings: Settings
    store: SettingsStore
    t: Translator
    post: Callable[[SettingsIntent], None]
    form: SettingsForm = field(default_factory=SettingsForm)
    width: float = 1024
    phone: bool = False
    quire: Quire | None = None
    ai: AIActions | None = None  # the AI section's background work (with ``quire``: the embedding models)
    sections: Sections = Sections()


def build_settings_screen(screen: SettingsScreen) -> ft.Control:
    """Every setting on one scrolling page (the phone-only ones on phones)."""
    settings, store, t, form, width = screen.settings, screen.store, screen.t, screen.form, screen.width
    quire, actions, parts = screen.quire, screen.ai, screen.sections

    def changed() -> None:
        screen.post(Saved())

    def redraw() -> None:
        screen.post(Redraw())

    def set_language(e: ft.Event[Any]) -> None:
        settings.language = e.control.value or "system"
        changed()

    language = ft.Dropdown(
        label=t("settings.language"),
        value=settings.language,
        options=[
            ft.DropdownOption(key="system", text=t("settings.language.system")),
            ft.DropdownOption(key="en", text="English"),
            ft.DropdownOption(key="zh", text="中文"),
        ],
        on_select=set_language,
        width=320,
    )

    def set_translate_to(e: ft.Event[Any]) -> None:
        settings.translate_to = e.control.value or ""
        changed()

    translate_to = ft.Dropdown(
        label=t("settings.translate_to"),
        value=settings.translate_to,
        options=[ft.DropdownOption(key="", text=t("settings.translate_to.default"))]
        + [ft.DropdownOption(key=code, text=name) for code, name in TRANSLATION_TARGETS],
        on_select=set_translate_to,
        width=min(420.0, width - 24),  # its longest choice whole (320 px cut it off), and no wider than a phone
    )

    def section(key: str) -> ft.Text:
        return ft.Text(t(key), size=18, weight=ft.FontWeight.BOLD)

    return ft.Column(
        [
            ft.Row(
                [
                    IconButton(ft.Icons.ARROW_BACK, tooltip=t("library.title"), on_click=lambda e: screen.post(Back())),
                    ft.Text(t("settings.title"), size=22, weight=ft.FontWeight.BOLD),
                ]
            ),
            ft.ListView(
                [
                    section("settings.reading"),
                    *reading_controls(settings, changed, t),
                    *(phone_switches(settings, changed, t) if screen.phone else []),
                    ft.Divider(),
                    section("settings.language"),
                    language,
                    translate_to,
                    ft.Divider(),
                    section("settings.ai"),
                    *provider_controls(settings, store, changed, t, actions, form, redraw),
                    *switches(settings, changed, t),
                    *(
                        [
                            ft.Divider(),
                            section("settings.embeddings"),
                            *remote_embedding_controls(settings, store, changed, t, form, redraw),
                            *embedding_controls(quire, t, actions),
                        ]
                        if quire is not None and actions is not None
                        else []
                    ),
                    *(
                        [ft.Divider(), section("dictionaries.title"), *dictionary_controls(parts.dictionaries, t)]
                        if parts.dictionaries is not None
                        else []
                    ),
                    *(
                        [ft.Divider(), section("catalogs.title"), *catalog_settings(parts.catalogs, t, form)]
                        if parts.catalogs is not None
                        else []
                    ),
                    *(
                        [ft.Divider(), section("folders.title"), *folder_controls(parts.folders, t, form)]
                        if parts.folders
                        else []
                    ),
                    *(
                        [ft.Divider(), section("sync.title"), *sync_controls(parts.sync, t, form, redraw)]
                        if parts.sync is not None
                        else []
                    ),
                    *(
                        [ft.Divider(), *koreader_controls(parts.koreader, t, form)]
                        if parts.koreader is not None
                        else []
                    ),
                    *(
                        [ft.Divider(), section("travel.title"), *travel_controls(parts.travel, t, form)]
                        if parts.travel
                        else []
                    ),
                ],
                spacing=10,
                expand=True,
                padding=ft.Padding.symmetric(horizontal=max(12, (width - 760) / 2)),  # a readable column
            ),
        ],
        expand=True,
    )


def sync_controls(
    sync: SyncController, t: Translator, form: SettingsForm, redraw: Callable[[], object]
) -> list[ft.Control]:
    """Where to sync (a WebDAV folder or a folder here), the password (kept in the secret store), book files on
    or off, check and save, sync now, and the last sync's status line (a sync that ends while Settings is open
    draws the screen again: in place, so the line is where the reader left it)."""
    current = sync.configured

    def set_files(e: ft.Event[Any]) -> None:
        form.chosen["sync.files"] = "on" if e.control.value else ""

    def save(e: ft.Event[Any], create: bool = False) -> None:
        form.say("sync", t("sync.checking"))
        redraw()
        files = form.chosen.get("sync.files", "on" if (current.book_files if current else True) else "")
        sync.setup(form.text("sync.target", current.target if current else ""),
                   form.text("sync.user", current.user if current else ""),
                   form.text("sync.password") or None, bool(files), create)  # fmt: skip
        if not sync.missing:  # kept while "Create the folder" is offered: that sets up again with it
            form.forget("sync.password")
        form.lines.pop("sync", None)  # the sync's own status from here
        redraw()

    def now(e: ft.Event[Any]) -> None:
        if sync.start("now"):
            form.say("sync", t("sync.running"))
            redraw()

    def ended() -> None:
        form.lines.pop("sync", None)
        redraw()

    sync.on_status = ended
    files_on = form.chosen.get("sync.files", "on" if (current.book_files if current else True) else "")
    return [
        ft.Text(t("sync.about"), size=12, color=ft.Colors.ON_SURFACE_VARIANT),
        form.field(
            "sync.target",
            current.target if current else "",
            label=t("sync.target"),
            hint_text=t("sync.target.hint"),
            width=420,
        ),
        form.field("sync.user", current.user if current else "", label=t("sync.user"), width=420),
        form.field(
            "sync.password",
            label=t("sync.password"),
            password=True,
            can_reveal_password=True,
            width=420,
            hint_text=t("sync.password.kept") if current else "",
        ),
        ft.Switch(label=t("sync.book_files"), value=bool(files_on), on_change=set_files),
        ft.Row(
            [
                ft.FilledButton(t("sync.save"), icon=ft.Icons.CLOUD_DONE_OUTLINED, on_click=save),
                ft.OutlinedButton(  # offered when the folder is not there, as other WebDAV sync clients do (MKCOL)
                    t("sync.create"),
                    icon=ft.Icons.CREATE_NEW_FOLDER_OUTLINED,
                    on_click=lambda e: save(e, create=True),
                    visible=sync.missing,
                ),
                ft.OutlinedButton(t("sync.now"), icon=ft.Icons.SYNC, on_click=now, disabled=sync.configured is None),
            ],
            wrap=True,
        ),
        form.line("sync", sync.status, sync.ok),
    ]
