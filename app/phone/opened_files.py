"""Android: the books other apps opened with Quire ("Open with") or shared to it, taken from the flet-open-with
extension (extensions/flet-open-with) on start and on coming back to the foreground, and imported as picked files."""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from platform_adapters.base import PickedFile
from platform_adapters.mobile import phone_os

log = logging.getLogger(__name__)


def open_with_available() -> bool:
    """An Android build with the extension (``flet build apk`` installs it from its folder)."""
    return phone_os() == "android" and importlib.util.find_spec("flet_open_with") is not None


class OpenedFiles:
    """``app.opened``: takes what other apps handed over and imports it through ``import_picked``."""

    def __init__(self, import_picked: Callable[[list[PickedFile]], Awaitable[None]]) -> None:
        self.import_picked = import_picked
        self._service: Any = None  # kept here: the page holds services only weakly

    async def take(self) -> int:
        """Import the files handed over since the last look; how many there were."""
        if not open_with_available():
            return 0
        if self._service is None:
            from flet_open_with import OpenWith

            self._service = OpenWith()
        try:
            found = await self._service.take()
        except (RuntimeError, TimeoutError) as error:  # the device reported a failure, or did not answer
            log.warning("could not take the files opened with Quire: %s", error)
            return 0
        picked = [PickedFile(str(f.get("name") or Path(str(f["path"])).name), path=Path(str(f["path"]))) for f in found]
        if picked:
            await self.import_picked(picked)
            for item in picked:  # the copies in the cache: the library has its own now
                if item.path is not None:
                    item.path.unlink(missing_ok=True)
        return len(picked)
