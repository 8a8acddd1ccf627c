"""Fonts the app serves itself: reading fonts from assets/, and for the web client a CJK font from a package."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

ASSETS = Path(__file__).resolve().parents[2] / "assets"
# The web client draws text itself and, offline, cannot fetch fallback fonts: without a CJK font of its own it
# draws Chinese as empty boxes. Noto Sans CJK (OFL) comes from the noto-cjk-sans-otc package (19 MB, so not
# in the repository); desktop and phone clients use the system's fonts and need none of this.
CJK_FONT = "Noto Sans CJK"
CJK_PACKAGE = "noto_cjk_sans_otc"
CJK_FILE = "NotoSansCJK-Regular.ttc"
CJK_ASSET = f"fonts/{CJK_FILE}"  # one of the page's fonts: loaded after the first frame
# What the engine loads before the first frame: the font above cut to the interface's characters and the 3,500 most
# used Chinese characters (1.6 MB, made by app/look/first_font.py), in the client's font manifest. Both are in every
# fallback list, the cut first, so a character drawn at first paint keeps its shape when the full font comes.
CJK_FIRST = "Noto Sans CJK first"
CJK_FIRST_ASSET = "fonts/NotoSansCJK-SC-first.otf"
CJK_FALLBACK = [CJK_FIRST, CJK_FONT]
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
    """A folder for the web server to serve (the icon, the reading fonts, the CJK fonts) and the page's fonts.

    The page's fonts load after the first frame, one after another: the full CJK font is the last of them. Before
    it, the first CJK font (a cut of it) is in the web client's own font manifest (``assets/FontManifest.json``,
    which Flet's server takes from the assets folder and to which it adds Roboto in the same way), and the Flutter
    engine loads every font there before it draws anything, so Chinese is never drawn as boxes at first paint, and
    the start does not wait for 19 MB. Files are copied, not linked (the static file server refuses links that
    leave its folder), and only when missing or changed, so later starts copy nothing.
    """
    wanted = {"icon.png": source / "icon.png", **{asset: source / asset for asset in READING_FONTS.values()}}
    fonts = dict(READING_FONTS)
    cjk = cjk_font_file()
    manifest = folder / "assets" / "FontManifest.json"
    if cjk is not None:
        wanted[CJK_ASSET] = cjk
        wanted[f"assets/{CJK_FIRST_ASSET}"] = source / CJK_FIRST_ASSET
        fonts[CJK_FONT] = CJK_ASSET
        families = [entry for entry in _client_font_manifest() if entry.get("family") not in (CJK_FONT, CJK_FIRST)]
        text = json.dumps([*families, {"family": CJK_FIRST, "fonts": [{"asset": CJK_FIRST_ASSET}]}])
        if not manifest.is_file() or manifest.read_text(encoding="utf-8") != text:
            manifest.parent.mkdir(parents=True, exist_ok=True)
            manifest.write_text(text, encoding="utf-8")
    else:
        manifest.unlink(missing_ok=True)
    (folder / "assets" / CJK_ASSET).unlink(missing_ok=True)  # where the last version put it: 19 MB not to keep twice
    for name, origin in wanted.items():
        target = folder / name
        if not target.is_file() or target.stat().st_size != origin.stat().st_size:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(origin, target)
    return folder, fonts


def _client_font_manifest() -> list[dict[str, object]]:
    """The font manifest of the web client Flet serves (its icons' and formulas' fonts), to add ours to."""
    spec = importlib.util.find_spec("flet_web")
    if spec is None or spec.origin is None:
        return []
    path = Path(spec.origin).parent / "web" / "assets" / "FontManifest.json"
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [entry for entry in found if isinstance(entry, dict)] if isinstance(found, list) else []
