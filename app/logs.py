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


TRANSPORT_LOG = "flet_transport"  # Flet's web transport: every message it sends and receives, at DEBUG


def lazy_transport_log() -> None:
    """Flet's web transport puts each message it sends into an f-string for its debug log, whether that log is on
    or not: the repr of every control the message carries, and of a drawn part's state (its last drawing) twice
    over. Opening Moby-Dick with its contents, 0.14 s of the server's 0.43 s went to it. A message is written out
    whole only when the transport's log is on (``QUIRE_DEBUG`` and the logger ``flet_transport`` at DEBUG)."""
    from flet.messaging.protocol import Message

    whole = Message.__repr__
    if getattr(whole, "lazy", False):
        return

    def lazy(message: Message) -> str:
        if logging.getLogger(TRANSPORT_LOG).isEnabledFor(logging.DEBUG):
            return whole(message)
        return f"Message({message.action.name})"

    lazy.lazy = True  # type: ignore[attr-defined]
    Message.__repr__ = lazy  # type: ignore[method-assign,assignment]
