"""Quire's Flet user interface: views and the view-models they render."""
