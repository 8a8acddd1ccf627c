"""Fonts the app serves itself: reading fonts from assets/, and for the web client a CJK font from a package."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

ASSETS = Path(__file__).resolve().parents[1] / "assets"
# The web client draws text itself and, offline, cannot fetch fallback fonts: without a CJK font of its own it
# draws Chinese as empty boxes. Noto Sans CJK (OFL) comes from the noto-cjk-sans-otc package (19 MB, so not
# in the repository); desktop and phone clients use the system's fonts and need none of this.
CJK_FONT = "Noto Sans CJK"
CJK_PACKAGE = "noto_cjk_sans_otc"
CJK_FILE = "NotoSansCJK-Regular.ttc"
READING_FONTS = {
    "Liberation Serif": "fonts/LiberationSerif-Regular.ttf",
    "Liberation Mono": "fonts/LiberationMono-Regular.ttf",
}


def cjk_font_file() -> Path | None:
    """The packaged CJK font, or None when the package is not installed (as on phones)."""
    spec = importlib.util.find_spec(CJK_PACKAGE)  # finds the package without importing it
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / CJK_FILE
    return path if path.is_file() else None


def web_assets(folder: Path, source: Path = ASSETS) -> tuple[Path, dict[str, str]]:
    """A folder for the web server to serve (the icon, the reading fonts, the CJK font) and the page's fonts.

    Files are copied, not linked (the static file server refuses links that leave its folder), and only when
    missing or changed, so later starts copy nothing.
    """
    fonts = dict(READING_FONTS)
    wanted = {"icon.png": source / "icon.png", **{asset: source / asset for asset in READING_FONTS.values()}}
    cjk = cjk_font_file()
    if cjk is not None:
        wanted[f"fonts/{CJK_FILE}"] = cjk
        fonts[CJK_FONT] = f"fonts/{CJK_FILE}"
    for name, origin in wanted.items():
        target = folder / name
        if not target.is_file() or target.stat().st_size != origin.stat().st_size:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(origin, target)
    return folder, fonts
