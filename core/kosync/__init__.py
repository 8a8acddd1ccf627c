"""KOReader progress sync: its server protocol, and a book's identity and places as KOReader names them."""
