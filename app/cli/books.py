"""The library commands: import, new, list, toc, show, find, edit, remove, position, bookmarks, highlights, stats, export."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli.common import Add, counted, duration, nonempty_text, print_json, whole_number
from core import (
    HIGHLIGHT_COLORS,
    ImportResult,
    Quire,
    QuireError,
    VaultFolderMissing,
    formats_in_words,
)


def _progress(done: int, total: int, result: ImportResult) -> None:
    if result.error:
        status = f"refused: {result.error}"
    else:
        book = result.book
        assert book is not None  # an import with no error has its book
        status = ("imported" if result.created else "already in library") + f" as {book.id}: {book.title}"
    print(f"[{done}/{total}] {result.source}: {status}", file=sys.stderr)


def _reading(path: str, pages: int, total: int) -> None:
    """A PDF's import says how far it is at each tenth of its pages (a 700-page PDF takes half a minute)."""
    if total >= 20 and pages < total and pages * 10 // total != (pages - 1) * 10 // total:
        print(f"  {Path(path).name}: {pages} of {total} pages read", file=sys.stderr)


def cmd_import(quire: Quire, args: argparse.Namespace) -> int:
    """Files, and folders (recursively; a calibre library folder with calibre's metadata)."""
    files = [path for path in args.paths if not Path(path).is_dir()]
    results = quire.import_paths(files, None if args.json else _progress, None if args.json else _reading)
    for path in (path for path in args.paths if Path(path).is_dir()):
        found = quire.folders.import_folder(path, None if args.json else _progress)
        results += found.results
        if found.calibre and not args.json:
            print(f"{path}: a calibre library, imported with calibre's metadata", file=sys.stderr)
        for line in found.skipped:
            print(f"  left out: {line}", file=sys.stderr)
        if args.watch:
            quire.folders.watch(path)
    if args.json:
        print_json([r.to_dict() for r in results])
    else:
        for result in results:
            if result.book:
                for warning in result.book.warnings if result.created else []:
                    print(f"  warning: {warning}", file=sys.stderr)
    return 1 if any(r.error for r in results) else 0


def cmd_new(quire: Quire, args: argparse.Namespace) -> int:
    """New books in the watched folders: listed, imported, or skipped (each is offered once)."""
    if args.action == "folders":
        for folder in quire.folders.watched():
            print(folder)
        return 0
    if args.action == "unwatch":
        if not args.folder:
            raise QuireError("say which folder: quire new unwatch FOLDER ('quire new folders' lists them)")
        quire.folders.unwatch(args.folder)
        return 0
    found = quire.folders.new_books()
    if args.action == "list":
        if args.json:
            print_json([str(p) for p in found])
        for path in found if not args.json else []:
            print(path)
        return 0
    results = quire.import_paths(found, None if args.json else _progress) if args.action == "import" else []
    quire.folders.seen(found)
    if args.json:
        print_json([r.to_dict() for r in results])
    return 1 if any(r.error for r in results) else 0


def cmd_list(quire: Quire, args: argparse.Namespace) -> int:
    books = quire.books(args.tag)
    if args.json:
        print_json([b.to_dict() for b in books])
        return 0
    if not books:
        print("The library is empty: add a book with 'quire import FILE'.")
    for book in books:
        position = quire.position(book.id)
        percent = f"{position.furthest_percent:5.1f}%" if position else "   new"
        authors = ", ".join(book.authors) or "unknown author"
        print(f"{book.id:>4}  {percent}  {book.title} — {authors}  [{book.edition}, {book.language or '?'}]")
    return 0


def cmd_toc(quire: Quire, args: argparse.Namespace) -> int:
    rows = quire.text.toc(args.book)
    if args.json:
        print_json([r.to_dict() for r in rows])
        return 0
    for row in rows:
        where = str(row.locator) if row.locator else "-"
        print(f"{where:>10}  {'  ' * row.depth}{row.title}")
    return 0


def cmd_show(quire: Quire, args: argparse.Namespace) -> int:
    segments = quire.text.show(args.book, args.locator, args.count)
    if args.json:
        print_json([s.to_dict() for s in segments])
        return 0
    for segment in segments:
        print(f"[{segment.locator}] {segment.text}")
    return 0


def cmd_find(quire: Quire, args: argparse.Namespace) -> int:
    """Every matching paragraph in book order, first mention first, as the reader's search panel lists them."""
    limit = None if args.all else args.limit
    hits = quire.find(args.book, args.text, None if limit is None else limit + 1, in_book_order=True)
    more = limit is not None and len(hits) > limit
    hits = hits[:limit]
    if args.json:
        print_json([h.to_dict() for h in hits])
        return 0
    if not hits:
        print(f"No matches for '{args.text}'.")
        return 0
    for hit in hits:
        print(f"{hit.locator!s:>12}  {hit.section_title}: {hit.snippet}")
    shown = f"the first {len(hits)} matches in book order" if more else f"{len(hits)} match(es), in book order"
    print(shown + ("; --all lists every one" if more else ""), file=sys.stderr)
    return 0


def cmd_edit(quire: Quire, args: argparse.Namespace) -> int:
    if args.title is None and args.author is None:
        raise QuireError("say what to change: --title TEXT and/or --author NAME (repeat --author for several)")
    book = quire.edit_book(args.book, title=args.title, authors=args.author)
    if args.json:
        print_json(book.to_dict())
    else:
        print(f"{book.id}: {book.title} — {', '.join(book.authors) or 'unknown author'}")
    return 0


def cmd_remove(quire: Quire, args: argparse.Namespace) -> int:
    book = quire.remove(args.book)
    if args.json:
        print_json(book.to_dict())
    else:
        print(f"Removed {book.title} ({book.id}).")
    return 0


def cmd_position(quire: Quire, args: argparse.Namespace) -> int:
    position = quire.save_position(args.book, args.locator) if args.locator else quire.position(args.book)
    if args.reset_furthest:
        position = quire.set_furthest(args.book, args.reset_furthest if args.reset_furthest != "here" else None)
    if args.json:
        print_json(position.to_dict() if position else None)
    elif position is None:
        print("Not started yet.")
    else:
        furthest = (
            f"read up to {position.furthest} ({position.furthest_percent:.1f}%)"
            if position.furthest
            else "nothing read"
        )
        print(
            f"At {position.locator} ({position.percent:.1f}%), {furthest}, "
            f"{position.reading_seconds / 60:.0f} min so far."
        )
    return 0


def cmd_bookmarks(quire: Quire, args: argparse.Namespace) -> int:
    if args.action == "add":
        if not args.locator:
            raise QuireError("say where: quire bookmarks add BOOK LOCATOR [--label TEXT]")
        items = [quire.notes.add_bookmark(args.book, args.locator, args.label or "")]
    else:
        items = quire.notes.bookmarks(args.book)
    if args.json:
        print_json([b.to_dict() for b in items])
    else:
        for bookmark in items:
            print(f"{bookmark.id:>4}  {bookmark.locator!s:>10}  {bookmark.label}")
    return 0


def cmd_highlights(quire: Quire, args: argparse.Namespace) -> int:
    if args.action == "add":
        if not (args.book and args.start):
            raise QuireError("say what: quire highlights add BOOK START [END] [--color C] [--note TEXT]")
        items = [quire.notes.add_highlight(args.book, args.start, args.end, args.color, args.note or "")]
    else:
        items = quire.notes.highlights(args.book)
    if args.json:
        print_json([h.to_dict() for h in items])
    else:
        for highlight in items:
            note = f"  — {highlight.note}" if highlight.note else ""
            print(
                f"{highlight.id:>4}  {highlight.start}..{highlight.end}  [{highlight.color}] {highlight.text[:80]}{note}"
            )
    return 0


def cmd_stats(quire: Quire, args: argparse.Namespace) -> int:
    stats = quire.stats.report(args.book)
    if args.json:
        print_json(stats.to_dict())
        return 0
    if not stats.books:
        print("No reading recorded yet: time is counted while a book is open in the app.")
        return 0
    print(f"Read {duration(stats.seconds)} in {counted(stats.sessions, 'session')}, {stats.chars:,} characters; "
          f"{counted(len(stats.days), 'day')}, {stats.streak} in a row now.")  # fmt: skip
    for book in stats.books:
        speed = f", {book.chars_per_minute:.0f} characters a minute" if book.chars_per_minute else ""
        left = ""
        if book.minutes_left is not None and book.chapter_minutes_left is not None:
            left = f"; left: {duration(book.chapter_minutes_left * 60)} in the chapter, {duration(book.minutes_left * 60)} in the book"
        print(f"  {book.title}: {duration(book.seconds)}, {counted(book.sessions, 'session')}{speed}{left}")
    print("Last weeks: " + "  ".join(f"{week[5:]} {duration(seconds)}" for week, seconds in stats.weeks[-4:]))
    return 0


def cmd_export(quire: Quire, args: argparse.Namespace) -> int:
    if args.vault:
        try:
            written = quire.notes.export_vault(args.vault, args.book, create=args.create)
        except VaultFolderMissing as missing:
            raise QuireError(f"{missing} (give --create to make it)") from None
        for path in written:
            print(path)
        print(f"{len(written)} note(s) written or updated in {args.vault}.", file=sys.stderr)
        return 0
    if args.book is None:
        raise QuireError("name a book to export, or give --vault DIR to write every book's highlights as notes")
    fmt = "json" if args.json else args.format
    text = quire.notes.export(args.book, fmt)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as error:
            raise QuireError(f"cannot write '{args.output}': {error.strerror or error}; choose another file") from None
        print(f"Wrote {args.output}.", file=sys.stderr)
    else:
        print(text)
    return 0


def register(add: Add) -> None:
    """Add this group's commands to the parser."""
    p = add("import", cmd_import, f"import book files ({formats_in_words('and')})")
    p.add_argument("paths", nargs="+", metavar="PATH", help="book files or folders (a calibre library's folder too)")
    p.add_argument("--watch", action="store_true", help="folders: offer the new books put there later (quire new)")
    p = add("new", cmd_new, "the new books in the folders you watch (quire import --watch): list, import or skip")
    p.add_argument("action", nargs="?", choices=["list", "import", "skip", "folders", "unwatch"], default="list")
    p.add_argument("folder", nargs="?", help="unwatch: the folder")
    p = add("list", cmd_list, "list the books in the library")
    p.add_argument("--tag", help="only books with this tag")
    p = add("toc", cmd_toc, "show a book's table of contents")
    p.add_argument("book", help="book id, content-hash prefix or title")
    p = add("show", cmd_show, "print the text at a locator")
    p.add_argument("book")
    p.add_argument("locator", help="section.segment[:char], e.g. 3.12")
    p.add_argument("-n", "--count", type=whole_number(10_000), default=1, help="how many segments to print (default 1)")
    p = add("find", cmd_find, "every paragraph of a book holding the words, in book order (first mention first)")
    p.add_argument("book")
    p.add_argument("text", type=nonempty_text)
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--limit", type=whole_number(100_000), default=50, help="show the first N matches (default 50)")
    shown.add_argument("--all", action="store_true", help="show every match")
    p = add("edit", cmd_edit, "set a book's title or authors")
    p.add_argument("book")
    p.add_argument("--title")
    p.add_argument("--author", action="append", help="an author (repeat for several; --author '' clears them)")
    p = add("remove", cmd_remove, "remove a book, its notes and its file")
    p.add_argument("book")
    p = add("position", cmd_position, "show or set where you are in a book (the spoiler bound)")
    p.add_argument("book")
    p.add_argument("locator", nargs="?", help="set the current place (the furthest place follows if it is past it)")
    p.add_argument(
        "--reset-furthest",
        nargs="?",
        const="here",
        metavar="LOC",
        help="move the furthest place read (the spoiler bound) back to LOC, or to the current place",
    )
    p = add("bookmarks", cmd_bookmarks, "add or list bookmarks")
    p.add_argument("action", choices=["add", "list"])
    p.add_argument("book")
    p.add_argument("locator", nargs="?")
    p.add_argument("--label")
    p = add("highlights", cmd_highlights, "add or list highlights and notes")
    p.add_argument("action", choices=["add", "list"])
    p.add_argument("book", nargs="?", help="omit with 'list' for the whole library")
    p.add_argument("start", nargs="?", help="locator where the highlight starts")
    p.add_argument("end", nargs="?", help="locator where it ends (default: end of the start segment)")
    p.add_argument("--color", default="yellow", choices=HIGHLIGHT_COLORS)
    p.add_argument("--note")
    p = add("stats", cmd_stats, "your reading: time, sessions, characters, days and weeks, speed and time left")
    p.add_argument("book", nargs="?", help="one book (default: all)")
    p = add("export", cmd_export, "export a book's highlights and notes (or, with --vault, every book's)")
    p.add_argument("book", nargs="?")
    p.add_argument("--vault", help="an Obsidian vault's folder: a note per book, updated in Quire's part only")
    p.add_argument("--create", action="store_true", help="with --vault: make the folder when it is not there")
    p.add_argument("--format", choices=["md", "json"], default="md")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")
