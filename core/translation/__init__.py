"""Paragraphs translated by the AI provider, kept per paragraph, language and model."""
