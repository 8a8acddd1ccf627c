"""OPDS catalogs: feeds read safely, searched and browsed, and their books downloaded into the library."""
