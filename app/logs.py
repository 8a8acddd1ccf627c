"""Logging for the two composition roots: the app's console gets warnings, the CLI's stderr only its own line."""

from __future__ import annotations

import logging
import os

DEBUG_ENV = "QUIRE_DEBUG"  # set (to anything) to see every warning and traceback, from the app or the CLI


def configure_logging(command_line: bool = False) -> None:
    """Warnings and errors of Quire's modules (and the libraries it uses) to stderr, with their tracebacks.

    The command line keeps stderr to its one-line errors unless ``$QUIRE_DEBUG`` is set: a defect met while
    reading a book is then logged there too, not only turned into a "damaged book" message.
    """
    debug = bool(os.environ.get(DEBUG_ENV))
    if command_line and not debug:
        root = logging.getLogger()
        if not root.handlers:  # not Python's last-resort handler either (which prints to stderr)
            root.addHandler(logging.NullHandler())
        return
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING, format="quire: %(levelname)s %(name)s: %(message)s"
    )
