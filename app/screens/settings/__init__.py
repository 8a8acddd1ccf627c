"""The settings screen: its view and the sections that keep state of their own (catalogs, folders, sync)."""
