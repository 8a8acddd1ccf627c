"""Shared fixtures: the shared test data folder, and libraries in temporary folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.library import Library
from core.services import Quire

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
BOOKS = DATA / "books"


def vector_backends() -> list[str]:
    """The vector back-ends this machine runs: numpy everywhere, sqlite-vec where its extension loads."""
    import os

    from core.inside import has_vector_extension, inside

    probe = Quire(Path(os.environ.get("TMPDIR", "/tmp")) / f"quire-probe-{os.getpid()}")
    available = has_vector_extension(inside(probe).library.conn)
    probe.close()
    return ["numpy", "sqlite-vec"] if available else ["numpy"]


def book_path(relative: str) -> Path:
    """A file under ../shared/data/books; skips the test (with the reason) when the folder is absent."""
    return shared_path(f"books/{relative}")


def shared_path(relative: str) -> Path:
    """A file or folder under ../shared/data (books, question sets); skips the test, saying why, when ../shared is
    not beside the clone. A name that is missing while the rest is there is a broken test: it fails."""
    if not BOOKS.is_dir():
        # allow_module_level: some test modules name their books at import (a whole module skips then)
        pytest.skip(
            f"shared test data not found at {DATA}: lay ../shared beside the clone to run this test",
            allow_module_level=True,
        )
    path = DATA / relative
    assert path.exists(), f"expected shared test data {path}"
    return path


def debian_file(path: str, package: str) -> Path:
    """A file a Debian package installs (real dictionaries: dict-wn, stardict-czech). Without it the test skips,
    saying what to install; with QUIRE_REQUIRE_DEBIAN=1 (CI installs them) it fails instead."""
    import os

    found = Path(path)
    if not found.exists():
        message = f"{path} not found: apt-get install {package} to run this test"
        if os.environ.get("QUIRE_REQUIRE_DEBIAN") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found


@pytest.fixture(autouse=True)
def _isolated_library_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the user's real library: point $QUIRE_LIBRARY at a temporary folder."""
    monkeypatch.setenv("QUIRE_LIBRARY", str(tmp_path / "env-library"))


@pytest.fixture
def library(tmp_path: Path) -> Library:
    lib = Library(tmp_path / "library")
    yield lib
    lib.close()


@pytest.fixture
def quire(tmp_path: Path) -> Quire:
    q = Quire(tmp_path / "quire")
    yield q
    q.close()


@pytest.fixture
def alice_quire(tmp_path: Path) -> Quire:
    """A library holding Alice in Wonderland (book id 1)."""
    q = Quire(tmp_path / "alice")
    q.import_paths([book_path("en/epubjs-alice.epub")])
    yield q
    q.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests run one after another on one worker (``--dist loadgroup``): two Chromiums drawing at once on
    a two-core machine starve each other and the app servers they drive; the other tests share the other workers.
    """
    for item in items:
        if item.get_closest_marker("e2e"):
            item.add_marker(pytest.mark.xdist_group("browser"))
