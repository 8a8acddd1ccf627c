"""Android's "open with" and "share to" for Flet: the files other apps handed the app (see README.md)."""

from flet_open_with.open_with import OpenWith

__all__ = ["OpenWith"]
