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
    assert config["project"]["scripts"]["quire"] == "core.cli:main"
    assert config["project"]["requires-python"] == ">=3.11"
    assert all(">=" in dep for dep in config["project"]["dependencies"])
