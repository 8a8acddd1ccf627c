"""The reading companion: X-Ray (who and what the book has named so far), always bounded by the furthest place."""
