"""Start Quire: a desktop window where Flet's client runs, the web UI otherwise (always offline-capable)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping

import flet as ft

from app.i18n import Translator
from app.logs import configure_logging, lazy_transport_log
from app.look.fonts import ASSETS, web_assets
from app.phone.device import is_phone_app
from app.shell import QuireApp
from app.web_gate import WebGate, new_token, page_url
from core import Quire, QuireError, default_library_dir, is_local_host, secret_names
from platform_adapters import SecretStore, current_platform
from platform_adapters.mobile import phone_os

TOKEN_ENV = "QUIRE_WEB_TOKEN"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Run the Quire reading app.")
    parser.add_argument("--web", action="store_true", help="serve the web UI instead of opening a window")
    parser.add_argument("--port", type=int, default=int(os.environ.get("FLET_SERVER_PORT", "0") or 0), help="web port")
    parser.add_argument("--library", help="library folder (default: $QUIRE_LIBRARY or the app's data folder)")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address the web UI listens on (default 127.0.0.1: this computer only); any other needs a token",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get(TOKEN_ENV) or None,
        help=f"the web UI's access token when it listens beyond this computer (default: ${TOKEN_ENV}, else a new one)",
    )
    args = parser.parse_args(argv)
    if args.library is not None and not args.library.strip():  # "" once meant the default library, silently
        parser.error("--library was given an empty folder name: name the folder, or leave the option out")
    return args


async def secret_store(page: ft.Page) -> SecretStore:
    """Secure storage on phones and in the in-browser build; the OS keyring where Python runs on a computer."""
    if is_phone_app(page) or sys.platform == "emscripten":
        from flet_secure_storage import SecureStorage

        from platform_adapters.mobile import SecureStorageSecrets

        secrets = SecureStorageSecrets(SecureStorage(), page.run_task)
        await secrets.load(secret_names())
        return secrets
    return current_platform().secrets


class LibraryOpener:
    """Opens the library once, after the first page exists (every tab shares it), in a worker thread.

    On a phone the first screen must not wait for storage, and storage that cannot open (a full disk, a
    library from a newer Quire) gets a screen that says so instead of an app that dies before it draws.
    """

    def __init__(self, folder: str | None) -> None:
        self.folder = folder
        self.quire: Quire | None = None
        self.lock = threading.Lock()

    def open(self) -> Quire:
        with self.lock:
            if self.quire is None:
                self.quire = Quire(self.folder or default_library_dir(current_platform().paths.data_dir()))
            return self.quire


def storage_error_view(error: QuireError) -> ft.Control:
    """What the window shows when the library cannot be opened: what happened and what to do."""
    t = Translator()
    return ft.SafeArea(
        ft.Column(
            [
                ft.Icon(ft.Icons.ERROR_OUTLINE, color=ft.Colors.ERROR, size=48),
                ft.Text(t("app.storage_error"), size=20, weight=ft.FontWeight.W_600),
                ft.Text(str(error), text_align=ft.TextAlign.CENTER),
            ],
            horizontal_alignment=ft.CrossAxisAlignment.CENTER,
            alignment=ft.MainAxisAlignment.CENTER,
            expand=True,
        ),
        expand=True,
    )


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    configure_logging()
    lazy_transport_log()
    library = LibraryOpener(args.library)

    web = wants_web(args.web, os.environ)
    assets, fonts = str(ASSETS), None
    if web:  # the browser gets its fonts from us, Chinese included (it cannot fetch any offline)
        folder, fonts = web_assets(current_platform().paths.cache_dir() / "web-assets")
        assets = str(folder)

    async def start(page: ft.Page) -> None:
        try:
            quire = await asyncio.to_thread(library.open)
        except QuireError as error:
            page.add(storage_error_view(error))
            return
        app = QuireApp(page, quire, secrets=await secret_store(page), fonts=fonts)
        if not app.follow_route(page.route):  # an address that names a book (a reload, a bookmark) opens it
            app.render()
        await app.books.offer_documents_inbox()
        await app.opened.take()  # Android: a book opened with Quire ("Open with", "Share") started the app

    if web:
        serve_web(start, args.host, args.port or 8550, args.token, assets)
    else:
        ft.run(start, view=ft.AppView.FLET_APP, no_cdn=True, assets_dir=assets)


def wants_web(asked: bool, environ: Mapping[str, str]) -> bool:
    """Serve the web UI when asked, or on a Linux desktop with no display server; never on a phone.

    Only Linux can lack a display; macOS and Windows desktops always have one. Android's Python says
    ``linux`` too (3.12) and has no DISPLAY, so the phone check comes first.
    """
    if phone_os(dict(environ)):
        return False
    headless = sys.platform.startswith("linux") and not environ.get("DISPLAY") and not environ.get("WAYLAND_DISPLAY")
    return asked or headless


def serve_web(
    start: Callable[[ft.Page], Awaitable[None]], host: str, port: int, token: str | None, assets: str
) -> None:
    """Serve the web UI behind the gate: this computer only, or (with a token) the network, said loudly."""
    import uvicorn

    if is_local_host(host):  # the same test local-only mode uses: a loopback address, or localhost
        token = None  # nobody else can reach it; the gate still checks Host and Origin
    else:
        token = token or new_token()
        print(
            f"WARNING: Quire's web UI is listening on {host}:{port}, reachable from other computers.\n"
            "Anyone with the link below can read your library and use your AI provider. Keep it secret.",
            file=sys.stderr,
        )
    os.environ.pop("FLET_SERVER_IP", None)  # Flet would otherwise bind where that says, past the gate
    flet_app = ft.run(start, no_cdn=True, assets_dir=assets, export_asgi_app=True)
    print(f"Quire: {page_url(host, port, token)}", flush=True)
    uvicorn.run(
        WebGate(flet_app, port, token, listen=host), host=host, port=port, log_level="warning", ws="websockets-sansio"
    )


if __name__ == "__main__":
    main()
