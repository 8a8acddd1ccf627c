"""Sync between devices through a folder or a WebDAV server that each device writes only its own files to.

The modules: ``clock`` (the hybrid logical clock), ``store`` (sync's tables: the reader's edits recorded in the
edit's own transaction, the merged state, the outbox, what was sent and seen), ``records`` and ``wire`` (the library
as records, and their shape on the wire), ``merge``, ``target`` (folder and WebDAV) and ``engine`` (one sync).
Nothing is imported here: the library writes its journal through ``core.sync.store`` without loading the engine
that reads the library.
"""
