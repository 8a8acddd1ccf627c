"""KOReader: its progress sync (the server protocol, ``client``; one exchange per book, ``progress``), a book's identity
and places as it names them (``document``), and its sidecars read and written (``lua``; highlights both ways,
``sidecars``)."""
