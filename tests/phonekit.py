"""Emulate a phone's Python in a child process: packages a phone build leaves out cannot be imported, and the
standard sqlite3 has no FTS5 (Android's is built without it)."""

from __future__ import annotations


def phone_prelude(blocked: set[str]) -> str:
    """Python source to run first in a child process, before anything of Quire is imported."""
    return f"""
import sqlite3, sys
BLOCKED = {sorted(blocked)!r}

class NotInAPhoneBuild:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"No module named {{name!r}} (not in a phone build)")
        return None

class NoFts5:
    def __init__(self, conn): self.conn = conn
    def execute(self, sql, *args):
        if "fts5" in sql.lower():
            raise sqlite3.OperationalError("no such module: fts5")
        return self.conn.execute(sql, *args)
    def __getattr__(self, name): return getattr(self.conn, name)

real_connect = sqlite3.connect
sqlite3.connect = lambda *a, **k: NoFts5(real_connect(*a, **k))
sys.meta_path.insert(0, NotInAPhoneBuild())
"""
