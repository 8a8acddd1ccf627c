"""Quire's UI-free core: books, library, and the facade the app and CLI share."""
