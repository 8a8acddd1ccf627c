"""The OpenWith service: its method is carried out by lib/src/open_with.dart and the plugin's Kotlin."""

from __future__ import annotations

from typing import Any

import flet as ft


@ft.control("OpenWith")
class OpenWith(ft.Service):
    """The book files other apps opened with, or shared to, this app since the last ``take``."""

    async def take(self) -> list[dict[str, Any]]:
        """Each file handed to the app (``{"name": …, "path": …}``, copied into its cache), once: a second call
        gives only what came since."""
        found = await self._invoke_method("take")
        return [dict(f) for f in found or [] if isinstance(f, dict) and f.get("path")]
