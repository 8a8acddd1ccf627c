"""What the app does on phones only: screen and haptics while reading, the files iOS and Android hand it, and speech."""
