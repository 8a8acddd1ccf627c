"""The README a newcomer reads in five minutes, and the MkDocs site in docs/ that holds the rest, built as CI does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

import core
import core.errors

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
COMMANDS = ("make run", "make test")  # each sets itself up (Makefile); .ci/run runs the second as it is
CODE_PATH = re.compile(r"`((?:core|app|platform_adapters|bench|tests|extensions|assets|docs)/[^` :]*)")


def _code_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S)]


def test_the_readme_is_short_and_keeps_its_two_commands_exactly() -> None:
    """Under 8 KB, the two commands as code blocks of their own (CI runs the second word for word), and every link
    it gives opens."""
    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) < 8 * 1024, f"README is {len(text.encode())} bytes"
    assert _code_blocks(text)[:2] == list(COMMANDS)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(rf"^(?:\w+=\S+ )*{re.escape(COMMANDS[1])}$", ci, flags=re.M), (
        "CI must run the README's test command"
    )
    links = re.findall(r"\]\(((?!https?:)[^)]+)\)", text)
    assert links and all((ROOT / link).is_file() for link in links), links


def test_every_docs_page_is_in_the_site_and_every_path_it_names_exists() -> None:
    """A page left out of the nav is unreachable; a file the docs name that was moved or removed is a docs lie."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    in_nav = {next(iter(entry.values())) for entry in config["nav"]}
    pages = {path.name for path in (ROOT / "docs").glob("*.md")}
    assert pages == in_nav
    made_by_runs = {line.strip() for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()}
    missing = []
    for page in sorted(pages):
        for named in CODE_PATH.findall((ROOT / "docs" / page).read_text(encoding="utf-8")):
            named = named.rstrip(".,")
            if named in made_by_runs:  # a folder the tests or the app write (tests/artifacts/), ignored by git
                continue
            if not (any(ROOT.glob(named)) if "*" in named else (ROOT / named).exists()):
                missing.append(f"{page}: {named}")
    assert not missing, missing


def test_the_site_builds_strictly_and_its_reference_names_the_whole_public_face(tmp_path: Path) -> None:
    """`mkdocs build --strict` (a broken link or a docstring griffe cannot read fails it), and the generated
    reference has an entry for every name in ``core.__all__`` and every error in ``core.errors``: a name added to
    the core's face without a docstring does not show there, so this fails until it has one."""
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    html = (site / "reference" / "index.html").read_text(encoding="utf-8")
    shown = set(re.findall(r'id="(core\.[A-Za-z_.]+)"', html))
    errors = {f"core.errors.{name}" for name, value in vars(core.errors).items()
              if isinstance(value, type) and issubclass(value, Exception) and value.__module__ == "core.errors"}  # fmt: skip
    wanted = {f"core.{name}" for name in core.__all__ if name != "errors"} | errors
    assert len(errors) > 20
    assert not wanted - shown, sorted(wanted - shown)
    assert (site / "images" / "reader-and-chat.png").is_file()
