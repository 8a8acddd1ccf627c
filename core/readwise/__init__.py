"""Readwise: highlights sent to its highlights API (v2)."""
