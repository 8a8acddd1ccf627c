"""What a notes list asks for (the library's notes screen, a book's notes panel), as typed intents posted to one
handler (``NotesController.handle``, made by ``QuireApp.notes_handler``) instead of a bag of callables."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core import Bookmark, Highlight, VocabularyWord


@dataclass(frozen=True, slots=True)
class OpenHighlight:
    highlight: Highlight


@dataclass(frozen=True, slots=True)
class EditNote:
    highlight: Highlight


@dataclass(frozen=True, slots=True)
class SetColor:
    highlight: Highlight
    color: str


@dataclass(frozen=True, slots=True)
class RemoveHighlight:
    highlight: Highlight


@dataclass(frozen=True, slots=True)
class ExportMarkdown:
    pass


@dataclass(frozen=True, slots=True)
class ExportVault:
    """Every book's highlights to an Obsidian vault (computers, the library's notes screen)."""


@dataclass(frozen=True, slots=True)
class OpenBookmark:
    bookmark: Bookmark


@dataclass(frozen=True, slots=True)
class RemoveBookmark:
    bookmark: Bookmark


@dataclass(frozen=True, slots=True)
class OpenWord:
    """A vocabulary word: where it was looked up."""

    word: VocabularyWord


@dataclass(frozen=True, slots=True)
class ForgetWord:
    word: VocabularyWord


NotesIntent = (
    OpenHighlight | EditNote | SetColor | RemoveHighlight | ExportMarkdown | ExportVault | OpenBookmark
    | RemoveBookmark | OpenWord | ForgetWord
)  # fmt: skip


@dataclass(frozen=True)
class NotesHandler:
    """Where a notes list posts its intents, and whether it offers the Obsidian export."""

    post: Callable[[NotesIntent], object]
    vault: bool = False
