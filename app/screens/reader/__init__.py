"""The reader screen: the open book's state, its view, its intents and controller, and its panels' parts."""
