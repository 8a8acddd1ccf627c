"""Read-aloud: a book spoken from a place, sentence by sentence, with the system's own voices."""
