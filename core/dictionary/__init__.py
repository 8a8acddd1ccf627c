"""Dictionaries the reader imports (StarDict, dictd, CC-CEDICT), looked up offline."""
