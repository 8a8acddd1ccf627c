"""Start Quire: a desktop window where Flet's client runs, the web UI otherwise (always offline-capable)."""

from __future__ import annotations

import argparse
import os
import sys

import flet as ft

from app.fonts import ASSETS, web_assets
from app.shell import QuireApp
from core.agent.provider_config import PROVIDERS
from core.services import Quire
from platform_adapters import SecretStore, current_platform

PHONES = (ft.PagePlatform.ANDROID, ft.PagePlatform.IOS)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Run the Quire reading app.")
    parser.add_argument("--web", action="store_true", help="serve the web UI instead of opening a window")
    parser.add_argument("--port", type=int, default=int(os.environ.get("FLET_SERVER_PORT", "0") or 0), help="web port")
    parser.add_argument("--library", help="library folder (default: $QUIRE_LIBRARY or the app's data folder)")
    return parser.parse_args(argv)


async def secret_store(page: ft.Page) -> SecretStore:
    """Secure storage on phones and in the in-browser build; the OS keyring where Python runs on a computer."""
    if (page.platform in PHONES and not page.web) or sys.platform == "emscripten":
        from flet_secure_storage import SecureStorage

        from platform_adapters.mobile import SecureStorageSecrets

        secrets = SecureStorageSecrets(SecureStorage(), page.run_task)
        await secrets.load(f"provider:{kind}" for kind in PROVIDERS)
        return secrets
    return current_platform().secrets


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    quire = Quire(args.library)

    # Only Linux can lack a display server; macOS and Windows desktops always have a screen.
    headless = (
        sys.platform.startswith("linux") and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")
    )
    web = args.web or headless
    assets, fonts = str(ASSETS), None
    if web:  # the browser gets its fonts from us, Chinese included (it cannot fetch any offline)
        folder, fonts = web_assets(current_platform().paths.cache_dir() / "web-assets")
        assets = str(folder)

    async def start(page: ft.Page) -> None:
        QuireApp(page, quire, secrets=await secret_store(page), fonts=fonts).render()

    port = args.port or (8550 if web else 0)
    view = ft.AppView.WEB_BROWSER if web else ft.AppView.FLET_APP
    ft.run(start, view=view, port=port, no_cdn=True, assets_dir=assets)


if __name__ == "__main__":
    main()
