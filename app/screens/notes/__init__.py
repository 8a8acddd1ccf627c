"""The notes screen and a book's notes panel: the highlights' state, their view and intents, the vault export."""
