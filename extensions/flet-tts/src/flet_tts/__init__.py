"""Text-to-speech on phones: a Flet service around the flutter_tts package (see README.md)."""

from flet_tts.text_to_speech import NORMAL_RATE, TextToSpeech, flutter_rate

__all__ = ["NORMAL_RATE", "TextToSpeech", "flutter_rate"]
