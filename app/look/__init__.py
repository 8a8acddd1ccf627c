"""How the app looks: its themes and the fonts it serves (and the cut CJK font the web client draws first)."""
