"""The library screen: its state (the books shown, filtered and sorted), its view and its controller."""
