"""The chat panel: its state (a thread and the answer streaming), its view, its intents and controller."""
