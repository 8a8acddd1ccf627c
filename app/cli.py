"""The ``quire`` command line: a thin client of the core facade (``core.services.Quire``), like the Flet app."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import httpx

from app.logs import configure_logging
from app.settings import SettingsStore
from app.terminal import PrintableStream
from core import (
    DEFAULT_SPEECH_RATE,
    HIGHLIGHT_COLORS,
    MODES,
    PROVIDERS,
    XRAY_KINDS,
    AgentEvent,
    BookNotFoundError,
    Correction,
    ImportResult,
    IndexStatus,
    LibraryError,
    ModelUnavailableError,
    OpdsFeed,
    ProviderConfig,
    Quire,
    QuireError,
    SecretStoreError,
    SyncFolderMissing,
    VaultFolderMissing,
    default_library_dir,
    formats_in_words,
)
from platform_adapters import Platform, current_platform


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line (not the whole usage block), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"quire: error: {message} (see '{self.prog} --help')\n")


def _count(limit: int) -> Callable[[str], int]:
    """An argparse type: a whole number from 1 to ``limit``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text[:40]}' is not a whole number") from None
        if not 1 <= value <= limit:
            raise argparse.ArgumentTypeError(f"{text[:40]} is out of range: give 1 to {limit}")
        return value

    return parse


def _words(text: str) -> str:
    """An argparse type: text with something in it (a query, a question)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("it is empty: write a few words")
    return text


def _endpoint(text: str) -> str:
    """An argparse type: an http(s) URL with a host."""
    try:
        url = httpx.URL(text.strip())
    except (httpx.InvalidURL, TypeError, ValueError):
        url = None
    if url is None or url.scheme not in ("http", "https") or not url.host:
        raise argparse.ArgumentTypeError(f"'{text[:60]}' is not an http(s) URL, e.g. http://localhost:11434/v1")
    return str(url)


def _print_json(value: object) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


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
        _print_json([r.to_dict() for r in results])
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
            _print_json([str(p) for p in found])
        for path in found if not args.json else []:
            print(path)
        return 0
    results = quire.import_paths(found, None if args.json else _progress) if args.action == "import" else []
    quire.folders.seen(found)
    if args.json:
        _print_json([r.to_dict() for r in results])
    return 1 if any(r.error for r in results) else 0


def cmd_list(quire: Quire, args: argparse.Namespace) -> int:
    books = quire.books(args.tag)
    if args.json:
        _print_json([b.to_dict() for b in books])
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
        _print_json([r.to_dict() for r in rows])
        return 0
    for row in rows:
        where = str(row.locator) if row.locator else "-"
        print(f"{where:>10}  {'  ' * row.depth}{row.title}")
    return 0


def cmd_show(quire: Quire, args: argparse.Namespace) -> int:
    segments = quire.text.show(args.book, args.locator, args.count)
    if args.json:
        _print_json([s.to_dict() for s in segments])
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
        _print_json([h.to_dict() for h in hits])
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
        _print_json(book.to_dict())
    else:
        print(f"{book.id}: {book.title} — {', '.join(book.authors) or 'unknown author'}")
    return 0


def cmd_remove(quire: Quire, args: argparse.Namespace) -> int:
    book = quire.remove(args.book)
    if args.json:
        _print_json(book.to_dict())
    else:
        print(f"Removed {book.title} ({book.id}).")
    return 0


def cmd_position(quire: Quire, args: argparse.Namespace) -> int:
    position = quire.save_position(args.book, args.locator) if args.locator else quire.position(args.book)
    if args.reset_furthest:
        position = quire.set_furthest(args.book, args.reset_furthest if args.reset_furthest != "here" else None)
    if args.json:
        _print_json(position.to_dict() if position else None)
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
        _print_json([b.to_dict() for b in items])
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
        _print_json([h.to_dict() for h in items])
    else:
        for highlight in items:
            note = f"  — {highlight.note}" if highlight.note else ""
            print(
                f"{highlight.id:>4}  {highlight.start}..{highlight.end}  [{highlight.color}] {highlight.text[:80]}{note}"
            )
    return 0


def _progress_bar(status: IndexStatus) -> None:
    width = 30
    filled = int(width * status.fraction)
    eta = f", about {status.eta_seconds:.0f}s left" if status.eta_seconds else ""
    line = f"\r[{'#' * filled}{'.' * (width - filled)}] {status.done}/{status.total} chunks, {status.rate:.1f}/s{eta}"
    print(line, end="" if status.status == "running" else "\n", file=sys.stderr, flush=True)


def _download_bar(done: int, total: int | None) -> None:
    size = f"{done / 1e6:.1f}" + (f" of {total / 1e6:.1f}" if total else "")
    print(f"\rdownloading the model: {size} MB", end="", file=sys.stderr, flush=True)


def cmd_models(quire: Quire, args: argparse.Namespace) -> int:
    models = quire.models.status()
    if args.json:
        _print_json([model.to_dict() for model in models])
        return 0
    for model in models:
        state = "ready" if model.available else "downloads on first use"
        print(f"{model.name:24} {','.join(model.languages):6} {model.dimension:>4}d  {state}")
    return 0


def cmd_index(quire: Quire, args: argparse.Namespace) -> int:
    name = args.embedder
    if name and ":" in name:
        if not args.base_url:
            raise QuireError(
                "a remote embedder needs --base-url, e.g. https://api.openai.com/v1 or http://localhost:11434"
            )
        key = os.environ.get("QUIRE_EMBEDDING_API_KEY") or None
        name = quire.models.use_remote(name, args.base_url, key)
    elif not name:
        name, reason = quire.models.choose(args.book)
        if not args.json:
            print(f"Embedding model: {reason}.", file=sys.stderr)
    status = quire.index(
        args.book,
        name,
        progress=None if args.json else _progress_bar,
        download_progress=None if args.json else _download_bar,
    )
    if args.json:
        _print_json(status.to_dict())
    return 0


def _book_and_words(args: argparse.Namespace, name: str) -> tuple[str | None, str]:
    """The book and the query (or question) of ``search`` and ``ask``: with --all there is no book, and the one
    argument given is the query."""
    book, words = args.book, getattr(args, name)
    if args.every_book:
        if words is not None:
            raise QuireError(f"--all searches every book: give only the {name}, not a book")
        book, words = None, book
    elif book is not None and words is None:
        raise QuireError(f"say what to look for after the book (or use --all to {args.command} every book)")
    if words is None:
        raise QuireError(f"say what to look for: quire {args.command} BOOK {name.upper()}, or --all {name.upper()}")
    if not words.strip():
        raise QuireError(f"the {name} is empty: write a few words")
    return book, words


def cmd_search(quire: Quire, args: argparse.Namespace) -> int:
    book, query = _book_and_words(args, "query")
    if book is None:
        if args.before:
            raise QuireError("--before is one book's place: with --all each book stops at your furthest place there")
        passages = quire.search_library(query, mode=args.mode, k=args.k, spoilers=args.spoilers)
    else:
        passages = quire.search(book, query, mode=args.mode, k=args.k, before=args.before)
    if args.json:
        _print_json([p.to_dict() for p in passages])
        return 0
    status = quire.index_status(book) if book is not None else None
    if book is not None and args.mode != "keyword" and (status is None or status.done == 0):
        print("This book is not indexed yet, so only keyword matches are shown: run 'quire index'.", file=sys.stderr)
    if not passages:
        where = " in what you have read" if book is None and not args.spoilers else ""
        print(f"No passages found for '{query}'{where}.")
    titles = {b.id: b.title for b in quire.books()} if book is None and passages else {}
    for rank, passage in enumerate(passages, start=1):
        text = " ".join(passage.text.split())
        page = f", p. {passage.page}" if passage.page else ""
        title = f"{titles.get(passage.book_id, '?')} · " if titles else ""
        print(f"{rank:>2}. {title}[{passage.start}..{passage.end}] {passage.section_title}{page} "
              f"(score {passage.score:.4f})")  # fmt: skip
        print(f"    {text[:300]}{'…' if len(text) > 300 else ''}")
    return 0


def _provider(args: argparse.Namespace) -> ProviderConfig | None:
    """The provider named by --provider/--model/--base-url (None: none, offline)."""
    if not args.provider:
        return None
    if not args.model:
        raise QuireError("say which model: --model NAME (e.g. gpt-4o-mini, deepseek-chat, llama3.1)")
    return ProviderConfig(args.provider, args.model, base_url=args.base_url or "")


def cmd_ask(quire: Quire, args: argparse.Namespace) -> int:
    book, question = _book_and_words(args, "question")
    provider = _provider(args)
    book_id = quire.book(book).id if book is not None else None
    secrets = args.platform.secrets if provider is not None else None
    events = quire.ask(
        book_id, question, thread_id=args.thread, provider=provider, spoilers=args.spoilers, secrets=secrets
    )
    titles = {b.id: b.title for b in quire.books()} if book_id is None else None
    return _print_events(events, args.json, titles)


def cmd_recap(quire: Quire, args: argparse.Namespace) -> int:
    provider = _provider(args)
    if provider is None:
        return _print_events(quire.companion.recap_events(args.book, spoilers=args.spoilers), args.json)
    book_id = quire.book(args.book).id
    events = quire.ask(book_id, "The story so far", provider=provider, spoilers=args.spoilers,
                       secrets=args.platform.secrets, recap=True)  # fmt: skip
    return _print_events(events, args.json)


def _print_events(events: Iterable[AgentEvent], as_json: bool, titles: dict[int, str] | None = None) -> int:
    """An answer's events as they come: one JSON object per line, or the text with its citations under it (with
    ``titles``, an answer from the library: each citation's book named)."""
    from core import NOTICES, CitationEvent, Done, ErrorEvent, TextDelta, ToolCallReady, balanced

    failed = False
    for event in events:
        notice = isinstance(event, ErrorEvent) and event.error_type in NOTICES  # an answer, said honestly
        failed |= isinstance(event, ErrorEvent) and not notice
        if as_json:
            print(json.dumps(event.to_dict(), ensure_ascii=False), flush=True)
        elif isinstance(event, TextDelta):
            print(event.text, end="", flush=True)
        elif isinstance(event, ToolCallReady):
            print(f"\n→ {event.name}({json.dumps(event.args, ensure_ascii=False)})", file=sys.stderr, flush=True)
        elif isinstance(event, CitationEvent):
            cited = event.citation
            page = f" (p. {cited.page})" if cited.page else ""
            book = f"{titles.get(cited.book_id, '?')} " if titles is not None else ""
            quote = " ".join(cited.quote.split())
            quote = balanced(quote if len(quote) <= 100 else quote[:99].rstrip() + "…")  # no stray half of a pair
            print(f"\n  [{cited.passage}] {book}{cited.start}{page}: {quote}", flush=True)
        elif notice and isinstance(event, ErrorEvent):
            print(event.message, flush=True)
        elif isinstance(event, ErrorEvent):
            print(f"\nquire: error: {event.message}", file=sys.stderr, flush=True)
        elif isinstance(event, Done):
            print()
            if event.fence is not None:  # the receipt: what of the book the answer could use
                if "books" in event.fence:  # the library: each book quoted, and how far it was read
                    print(_used_library(event.fence, titles or {}), flush=True)
                else:
                    print(_used(event.fence["locator"], event.fence["percent"]), flush=True)
                sent = event.fence.get("sent")
                if sent:  # with a provider: what it was given, each passage by its place
                    print(f"(Sent to the AI: passages {', '.join(p['start'] for p in sent)}.)", flush=True)
    return 1 if failed else 0


def _used(place: str | None, percent: float) -> str:
    """The receipt of a fence: what of the book an answer, a recap or X-Ray could use."""
    if place is None:
        return "(Used nothing of the book: nothing counts as read yet.)"
    return f"(Used the book up to {place}, {percent:g}%: where you have read to.)"


def _used_library(fence: dict[str, Any], titles: dict[int, str]) -> str:
    """The receipt of an answer from the library: each book quoted up to where it was read, and the books searched."""
    books = "; ".join(
        f"{titles.get(b['book'], b['book'])} up to {b['locator']}, {b['percent']:g}%" for b in fence["books"]
    )
    searched = (
        f"{fence['searched']} book{'s' if fence['searched'] != 1 else ''} searched, each up to where you have read"
    )
    return f"(Used {books}: {searched}.)" if books else f"({searched[0].upper()}{searched[1:]}.)"


def cmd_sync(quire: Quire, args: argparse.Namespace) -> int:
    """``sync setup TARGET``, ``sync status`` or ``sync`` (send and receive now)."""
    secrets = args.platform.secrets
    from_env = os.environ.get("QUIRE_SYNC_PASSWORD")  # works without a keyring: it is never stored
    if args.action == "setup":
        if not args.target:
            raise QuireError("say where to sync: quire sync setup https://dav.example.com/quire/ (or a folder)")
        password = from_env
        if "://" in args.target and args.user and password is None:
            password = _ask_password(f"password for {args.user} at {args.target}: ", "QUIRE_SYNC_PASSWORD")
        options = {"book_files": not args.no_book_files, "max_book_mb": args.max_book_mb,
                   "remember_password": from_env is None}  # fmt: skip
        try:
            status = quire.sync.setup(args.target, args.user or "", password, secrets, create=args.create, **options)
        except SyncFolderMissing as missing:
            if not _terminal():
                raise SyncFolderMissing(f"{missing} (give --create to make it)") from None
            if not _yes(f"{missing}. Create it? [y/N] "):
                raise
            status = quire.sync.setup(args.target, args.user or "", password, secrets, create=True, **options)
        if args.json:
            _print_json(status.to_dict())
        else:
            print(f"sync is set up: {status.target} (this device is {status.device}); run 'quire sync'")
        return 0
    if args.target:
        raise QuireError(f"'{args.target}' is not understood here: quire sync [status | setup TARGET]")
    if args.action == "status":
        status = quire.sync.status(secrets, from_env)
        if args.json:
            _print_json(status.to_dict())
            return 0
        last = status.last
        print(f"target: {status.target}  device: {status.device}  unsent edits: {status.unsent_edits}"
              f"  unsent change files: {status.unsent_files}")  # fmt: skip
        print(f"last sync: {last.finished_at}, sent {last.sent}, received {last.received}" if last else "never synced")
        return 0
    report = quire.sync.run(secrets, from_env)
    if args.json:
        _print_json(report.to_dict())
    else:
        print(f"sent {report.sent} change(s), received {report.received} from {report.files_read} file(s)")
        for title in report.books_sent:
            print(f"  book sent: {title}")
        for title in report.books_received:
            print(f"  book received: {title}")
        for warning in report.warnings:
            print(f"  warning: {warning}", file=sys.stderr)
    return 0


def cmd_xray(quire: Quire, args: argparse.Namespace) -> int:
    said = _correct_xray(quire, args)
    if args.corrections:
        found = quire.companion.corrections(args.book)
        if args.json:
            _print_json([c.to_dict() for c in found])
        for correction in [] if args.json else found:
            print(f"  {correction.name}: {_said(correction)}")
        if not found and not args.json:
            print("No corrections: X-Ray shows what it found.")
        return 0
    entries = quire.companion.xray(args.book, spoilers=args.spoilers)
    if args.json:
        _print_json([entry.to_dict() for entry in entries])
        return 0
    for line in said:
        print(line)
    if not entries:
        read = quire.position(args.book)
        print("Nothing read yet: open the book and read a little." if read is None else "No names so far.")
        return 0
    for entry in entries:
        variants = [v for v in entry.variants if v != entry.name]
        also = f" (also {', '.join(variants)})" if variants else ""
        print(f"{entry.mentions:>5}  {entry.name}{also}  [{entry.kind}, first at {entry.first.locator}]")
    position = None if args.spoilers else quire.position(args.book)
    if position is not None:  # the receipt, as an answer's: nothing past here was read for these names
        furthest = str(position.furthest) if position.furthest is not None else None
        print(_used(furthest, round(position.furthest_percent, 1)))
    return 0


def _correct_xray(quire: Quire, args: argparse.Namespace) -> list[str]:
    """Keep the corrections given on the command line, in the order of the options; a line for each."""
    done: list[str] = []
    correct = quire.companion.correct
    for name in args.forget or []:
        gone = quire.companion.forget_correction(args.book, name)
        done.append(f"X-Ray shows “{name}” as it found it again." if gone else f"Nothing was said of “{name}”.")
    for name in args.hide or []:
        correct(args.book, name, hide=True)
        done.append(f"Hidden: {name} (quire xray {args.book} --forget “{name}” shows it again).")
    for whole, part in args.merge or []:
        correct(args.book, part, into=whole)
        done.append(f"Merged: {part} is {whole}.")
    for old, new in args.rename or []:
        correct(args.book, old, rename=new)
        done.append(f"Renamed: {old} is shown as {new}.")
    for name, kind in args.kind or []:
        correct(args.book, name, kind=kind)
        done.append(f"Kind: {name} is a {kind}.")
    for name in args.add or []:
        correct(args.book, name, add=True)
        done.append(f"Added: {name} (shown once the book has used it up to where you have read).")
    return done


def _said(correction: Correction) -> str:
    """A correction in words, for ``quire xray --corrections``."""
    parts = ["hidden"] if correction.hide else []
    parts += [f"merged into {correction.into}"] if correction.into else []
    parts += [f"shown as {correction.rename}"] if correction.rename else []
    parts += [f"a {correction.kind}"] if correction.kind else []
    parts += ["added"] if correction.add else []
    return ", ".join(parts) or "nothing"


def cmd_dict(quire: Quire, args: argparse.Namespace) -> int:
    if args.action == "import":
        if not args.paths:
            raise QuireError(
                "say which dictionary: quire dict import FILE (a StarDict .ifo, a dictd .index or CC-CEDICT)"
            )
        added = [quire.dictionary.add(path) for path in args.paths]
        if args.json:
            _print_json([info.to_dict() for info in added])
        for info in added if not args.json else []:
            print(f"{info.id}. {info.name} ({info.kind}): {info.words} headwords")
        return 0
    if args.action == "remove":
        if not args.paths or not all(p.isdigit() for p in args.paths):
            raise QuireError("say which dictionaries by number: 'quire dict list' shows them")
        for number in args.paths:
            quire.dictionary.remove(int(number))
        return 0
    dictionaries = quire.dictionary.all()
    if args.json:
        _print_json([info.to_dict() for info in dictionaries])
    elif not dictionaries:
        print("No dictionaries yet: 'quire dict import FILE' adds a StarDict, dictd or CC-CEDICT dictionary.")
    for info in dictionaries if not args.json else []:
        print(f"{info.id}. {info.name} ({info.kind}): {info.words} headwords")
    return 0


def cmd_define(quire: Quire, args: argparse.Namespace) -> int:
    found = quire.dictionary.define(args.word, args.book)
    if args.json:
        _print_json([d.to_dict() for d in found])
        return 0 if found else 1
    if not found:
        none = "" if quire.dictionary.all() else " (no dictionaries yet: 'quire dict import FILE')"
        print(f"'{args.word}' is not in your dictionaries{none}.", file=sys.stderr)
        return 1
    for definition in found:
        via = f" (from '{definition.looked_up}')" if definition.looked_up else ""
        print(f"{definition.word}{via}: {definition.dictionary}")
        print("    " + definition.text.replace("\n", "\n    "))
    return 0


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _counted(n: int, word: str) -> str:
    """ "1 session", "3 sessions"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def cmd_stats(quire: Quire, args: argparse.Namespace) -> int:
    stats = quire.stats.report(args.book)
    if args.json:
        _print_json(stats.to_dict())
        return 0
    if not stats.books:
        print("No reading recorded yet: time is counted while a book is open in the app.")
        return 0
    print(f"Read {_duration(stats.seconds)} in {_counted(stats.sessions, 'session')}, {stats.chars:,} characters; "
          f"{_counted(len(stats.days), 'day')}, {stats.streak} in a row now.")  # fmt: skip
    for book in stats.books:
        speed = f", {book.chars_per_minute:.0f} characters a minute" if book.chars_per_minute else ""
        left = ""
        if book.minutes_left is not None and book.chapter_minutes_left is not None:
            left = f"; left: {_duration(book.chapter_minutes_left * 60)} in the chapter, {_duration(book.minutes_left * 60)} in the book"
        print(f"  {book.title}: {_duration(book.seconds)}, {_counted(book.sessions, 'session')}{speed}{left}")
    print("Last weeks: " + "  ".join(f"{week[5:]} {_duration(seconds)}" for week, seconds in stats.weeks[-4:]))
    return 0


def _opds_login(args: argparse.Namespace) -> dict[str, str]:
    """--user, with the password from $QUIRE_OPDS_PASSWORD (never stored from there) or a prompt."""
    if not args.user:
        return {}
    password = os.environ.get("QUIRE_OPDS_PASSWORD")
    if password is None:
        password = _ask_password(f"password for {args.user} at the catalog: ", "QUIRE_OPDS_PASSWORD")
    return {"user": args.user, "password": password}


def _yes(question: str) -> bool:
    """A yes typed at the terminal (anything else, or no answer, is a no)."""
    try:
        return input(question).strip().lower() in ("y", "yes")
    except (EOFError, KeyboardInterrupt):
        return False


_NOT_UTF8 = re.compile("[\udc80-\udcff]")  # how Python keeps an argument's bytes that are no UTF-8


def _terminal() -> bool:
    """Whether a person can be asked at a terminal (stdin may be closed, ``<&-``, and then is None)."""
    return sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty()


def _ask_password(prompt: str, variable: str) -> str:
    """The password typed at a terminal; with none (a script, a pipe, stdin closed), a QuireError saying how to
    give it."""
    if not _terminal():
        raise QuireError(f"no terminal to ask the password at: give it in ${variable} (it is not stored from there)")
    import getpass

    try:
        return getpass.getpass(prompt)
    except (EOFError, KeyboardInterrupt):
        raise QuireError(f"no password given: type it at the prompt, or give it in ${variable}") from None


def _print_feed(feed: OpdsFeed) -> None:
    print(feed.title or feed.url)
    for entry in feed.entries:
        if entry.acquisitions:
            by = f" by {', '.join(entry.authors)}" if entry.authors else ""
            print(f"  {entry.title}{by} [{', '.join(entry.formats)}]\n      id: {entry.id}")
        elif entry.feed:
            print(f"  {entry.title} →\n      {entry.feed}")
    if feed.next:
        print(f"next page: {feed.next}")
    if any(entry.acquisitions for entry in feed.entries):
        print("get one: quire opds get CATALOG ID (CATALOG: its number in 'quire opds list', or this feed's URL)")
    if feed.elsewhere:
        print(f"({feed.elsewhere} link(s) to other servers left out)")


def cmd_opds(quire: Quire, args: argparse.Namespace) -> int:
    """``opds add|list|remove|browse|search|get``: OPDS catalogs (calibre's content server, Calibre-Web…)."""
    secrets = args.platform.secrets
    needs = {"add": 1, "remove": 1, "browse": 1, "search": 2, "get": 2}.get(args.action, 0)
    if len(args.rest) < needs:
        raise QuireError(f"quire opds {args.action} needs {needs} argument(s): see 'quire opds --help'")
    if args.action == "list":
        catalogs = quire.catalogs.all()
        if args.json:
            _print_json([c.to_dict() for c in catalogs])
        elif not catalogs:
            print(
                "No catalogs yet: add one with 'quire opds add URL' (calibre's content server: http://HOST:8080/opds)."
            )
        for catalog in catalogs if not args.json else []:
            print(
                f"{catalog.id}. {catalog.title}  {catalog.url}"
                + (f"  ({catalog.username})" if catalog.username else "")
            )
        return 0
    if args.action == "remove":
        if not args.rest[0].isdecimal():
            raise QuireError(
                f"say which catalog by its number, not {args.rest[0][:40]!r}: 'quire opds list' shows them"
            )
        quire.catalogs.remove(int(args.rest[0]), secrets)
        return 0
    login = _opds_login(args)
    if args.action == "add":
        remember = os.environ.get("QUIRE_OPDS_PASSWORD") is None
        info = quire.catalogs.add(args.rest[0], args.title or "", login.get("user", ""), login.get("password"),
                                  secrets if remember else None)  # fmt: skip
        if args.json:
            _print_json(info.to_dict())
        else:
            print(f"added catalog {info.id}: {info.title}")
        return 0
    if args.action == "get":

        def shown(done: int, total: int | None) -> None:
            if not args.json and sys.stderr.isatty():
                print(
                    f"\r{done // 1024:,} KB" + (f" of {total // 1024:,} KB" if total else ""), end="", file=sys.stderr
                )

        result = quire.catalogs.get(args.rest[0], args.rest[1], secrets, progress=shown, **login)
        if result.error is not None:
            raise result.error
        assert result.book is not None
        if args.json:
            _print_json(result.to_dict())
        else:
            print(f"{'imported' if result.created else 'already in the library'}: {result.book.title}")
        return 0
    if args.action == "search":
        feed = quire.catalogs.search(args.rest[0], " ".join(args.rest[1:]), secrets, **login)
    else:
        feed = quire.catalogs.browse(args.rest[0], secrets, **login)
    if args.json:
        _print_json(feed.to_dict())
    else:
        _print_feed(feed)
    return 0


def cmd_koreader(quire: Quire, args: argparse.Namespace) -> int:
    """``quire koreader import|export DIR``: highlights and notes from KOReader's sidecars, or into them."""
    if args.action == "export":
        sent = quire.koreader.export_highlights(args.folder)
        if args.json:
            _print_json([r.to_dict() for r in sent])
        for out in [] if args.json else sent:
            if out.problem:
                print(f"{out.sidecar}: {out.problem}")
            else:
                print(
                    f"{out.title}: {out.added} added, {out.kept} already there, {out.left_out} left out ({out.sidecar})"
                )
        if not sent and not args.json:
            print(f"No book with highlights in the library is under {args.folder} (EPUBs, matched by their file).")
        return 1 if sent and all(out.problem for out in sent) else 0
    results = quire.koreader.import_highlights(args.folder)
    if args.json:
        _print_json([r.to_dict() for r in results])
    else:
        for r in results:
            if r.problem:
                print(f"{r.sidecar}: {r.problem}")
            else:
                print(f"{r.title}: {r.added} added, {r.kept} already here, {r.left_out} left out")
        if not results:
            print(f"No KOReader sidecars (*.sdr/metadata.*.lua) under {args.folder}.")
    return 1 if results and all(r.problem for r in results) else 0


def cmd_kosync(quire: Quire, args: argparse.Namespace) -> int:
    """``kosync setup URL --user U [--register]``, ``kosync off``, or ``kosync [BOOK]`` (exchange progress)."""
    secrets = args.platform.secrets
    password = os.environ.get("QUIRE_KOSYNC_PASSWORD")  # never stored from there: its MD5 key is, when prompted
    what = list(args.what)
    if what[:1] == ["setup"]:
        if len(what) != 2 or not args.user:
            raise QuireError("say where and who: quire kosync setup URL --user NAME (password: $QUIRE_KOSYNC_PASSWORD)")
        remember = password is None  # from the environment: used now and given again each time, never stored
        if password is None:
            password = _ask_password(f"KOReader sync password for {args.user}: ", "QUIRE_KOSYNC_PASSWORD")
        found = quire.kosync.setup(what[1], args.user, password, secrets if remember else None, register=args.register)
        print(f"KOReader sync is on: {found['url']} as {found['user']}; run 'quire kosync'")
        return 0
    if what[:1] == ["off"]:
        if len(what) > 1:
            raise QuireError("quire kosync off takes nothing after it")
        quire.kosync.turn_off(secrets)
        print("KOReader sync is off", file=sys.stderr)
        return 0
    if len(what) > 1:
        raise QuireError("quire kosync [BOOK] | setup URL --user NAME | off")
    results = quire.kosync.sync(what[0] if what else None, secrets, password)
    if args.json:
        _print_json([r.to_dict() for r in results])
        return 0
    for result in results:
        said = {"sent": f"sent {result.percentage:.0%}", "received": f"now at {result.locator} from {result.device}",
                "same": "already the same", "nothing": "nothing read yet"}[result.direction]  # fmt: skip
        print(f"{result.title}: {said}")
    return 0


def cmd_readwise(quire: Quire, args: argparse.Namespace) -> int:
    """``readwise setup [--url URL]`` (the token from $QUIRE_READWISE_TOKEN or a prompt), ``readwise off``, or
    ``readwise`` (send what is new since the last send)."""
    secrets = args.platform.secrets
    if args.action == "setup":
        token = os.environ.get("QUIRE_READWISE_TOKEN") or _ask_password(
            "Readwise access token (readwise.io/access_token): ", "QUIRE_READWISE_TOKEN"
        )
        found = quire.readwise.setup(token, secrets, keep_in_environment="QUIRE_READWISE_TOKEN" in os.environ,
                                     **({"url": args.url} if args.url else {}))  # fmt: skip
        if found.get("token") == "environment":
            print("quire: no keyring here to keep the token: it is read from $QUIRE_READWISE_TOKEN at each send",
                  file=sys.stderr)  # fmt: skip
        print(f"Readwise is on ({found['url']}); run 'quire readwise' to send your highlights")
        return 0
    if args.action == "off":
        quire.readwise.turn_off(secrets)
        print("Readwise is off", file=sys.stderr)
        return 0
    result = quire.readwise.send(secrets, token=os.environ.get("QUIRE_READWISE_TOKEN") or None)
    if args.json:
        _print_json(result.to_dict())
    else:
        print(f"Sent {result.sent} highlights of {result.books} books to Readwise; {result.unchanged} already there")
    return 0


def cmd_translate(quire: Quire, args: argparse.Namespace) -> int:
    provider = _provider(args)
    if provider is None:
        raise QuireError("translating needs an AI provider: --provider NAME --model NAME (see 'quire ask --help')")
    target = args.to or quire.translation.target(args.book, "en")
    text = quire.translation.paragraph(args.book, args.locator, target, provider, args.platform.secrets)
    if args.json:
        _print_json({"locator": args.locator, "to": target, "text": text})
    else:
        print(text)
    return 0


def cmd_speak(quire: Quire, args: argparse.Namespace) -> int:
    if not args.output:
        raise QuireError("say where to write the audio: -o FILE.wav (read-aloud in the app speaks as you read)")
    spoken = quire.speech.save(args.book, args.output, args.locator, args.n, args.rate, args.voice)
    if args.json:
        _print_json([s.to_dict() for s in spoken])
        return 0
    for sentence in spoken:
        print(f"{sentence.audio_start:7.2f}s  [{sentence.start}]  {' '.join(sentence.text.split())[:100]}")
    print(f"Wrote {args.output}: {spoken[-1].audio_end:.1f} s of audio.")
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


def _provider_options(p: argparse.ArgumentParser, about: str = "") -> None:
    p.add_argument("--provider", choices=PROVIDERS, help=about or None)
    p.add_argument("--model", help="the provider's model name")
    p.add_argument(
        "--base-url",
        type=_endpoint,
        help="endpoint (defaults per provider); the API key comes from the keyring or the environment",
    )


def build_parser() -> argparse.ArgumentParser:
    def common_options(default: object) -> _Parser:
        # Accepted before and after the command. After it, an unset option must not overwrite the value given
        # before it (argparse copies a sub-command's defaults over the main parser's), hence SUPPRESS there.
        options = _Parser(add_help=False)
        options.add_argument(
            "--library",
            metavar="DIR",
            default=default,
            help="library folder (default: $QUIRE_LIBRARY or the app's data folder)",
        )
        options.add_argument(
            "--json", action="store_true", default=False if default is None else default, help="print JSON"
        )
        return options

    common = common_options(argparse.SUPPRESS)
    parser = _Parser(
        prog="quire", description="Quire: read, search and annotate your books.", parents=[common_options(None)]
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, handler: Callable[[Quire, argparse.Namespace], int], help_text: str) -> argparse.ArgumentParser:
        command = sub.add_parser(name, help=help_text, description=help_text, parents=[common])
        command.set_defaults(handler=handler)
        return command

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
    p.add_argument("-n", "--count", type=_count(10_000), default=1, help="how many segments to print (default 1)")
    p = add("find", cmd_find, "every paragraph of a book holding the words, in book order (first mention first)")
    p.add_argument("book")
    p.add_argument("text", type=_words)
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--limit", type=_count(100_000), default=50, help="show the first N matches (default 50)")
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
    p = add("index", cmd_index, "embed a book for semantic search (resumes an interrupted run)")
    p.add_argument("book")
    p.add_argument(
        "--embedder", help="a model (all-MiniLM-L6-v2, bge-small-zh-v1.5, ...) or openai:MODEL / ollama:MODEL"
    )
    p.add_argument(
        "--base-url", type=_endpoint, help="endpoint of a remote embedder; its key comes from $QUIRE_EMBEDDING_API_KEY"
    )
    add("models", cmd_models, "list the on-device embedding models")
    every = "every book, each as far as you have read it (give no book)"
    p = add("search", cmd_search, "find the passages that answer a question (keyword + semantic)")
    p.add_argument("book", nargs="?", help="the book (with --all: the query)")
    p.add_argument("query", nargs="?")
    p.add_argument("--all", action="store_true", dest="every_book", help=f"search {every}")
    p.add_argument("--mode", choices=MODES, default="hybrid")
    p.add_argument("--k", type=_count(100), default=5, help="how many passages (default 5, at most 100)")
    p.add_argument("--before", metavar="LOCATOR", help="never return text after this locator (spoiler bound)")
    p.add_argument("--spoilers", action="store_true", help="with --all: also past your place in each book")
    p = add("ask", cmd_ask, "ask about a book; without --provider: the passages that answer it, cited")
    p.add_argument("book", nargs="?", help="the book (with --all: the question)")
    p.add_argument("question", nargs="?")
    p.add_argument("--all", action="store_true", dest="every_book", help=f"ask {every}")
    p.add_argument("--spoilers", action="store_true", help="also search past your reading position")
    p.add_argument("--thread", type=_count((1 << 63) - 1), help="continue this thread (default: a new one)")
    _provider_options(p)
    p = add("sync", cmd_sync, "sync places, notes and books with your other devices (a folder or WebDAV)")
    p.add_argument("action", nargs="?", choices=["setup", "status"], help="without one: sync now")
    p.add_argument("target", nargs="?", help="with setup: an https:// WebDAV folder, or a folder on this computer")
    p.add_argument("--user", help="the WebDAV user; the password comes from $QUIRE_SYNC_PASSWORD or a prompt")
    p.add_argument("--no-book-files", action="store_true", help="sync places and notes only, not the book files")
    p.add_argument("--max-book-mb", type=_count(100_000), default=200, help="book files larger stay on this device")
    p.add_argument("--create", action="store_true", help="with setup: create the sync folder when it is not there")
    p = add("xray", cmd_xray, "the people, places and terms named so far, up to where you have read")
    p.add_argument("book")
    p.add_argument("--spoilers", action="store_true", help="the whole book, past your reading position")
    fix = p.add_argument_group("corrections (kept for the book and synced; each option may be given again)")
    fix.add_argument("--hide", action="append", metavar="NAME", help="hide the entry going by NAME")
    fix.add_argument("--merge", action="append", nargs=2, metavar=("A", "B"), help="B is A: one entry, named A")
    fix.add_argument("--rename", action="append", nargs=2, metavar=("A", "B"), help="show the entry A as B")
    fix.add_argument("--kind", action="append", nargs=2, metavar=("NAME", "KIND"), help=" or ".join(XRAY_KINDS))
    fix.add_argument("--add", action="append", metavar="NAME", help="a name X-Ray missed, found in the text")
    fix.add_argument("--forget", action="append", metavar="NAME", help="take back what was said of NAME")
    fix.add_argument("--corrections", action="store_true", help="list the corrections instead of X-Ray")
    p = add("recap", cmd_recap, "the story so far: each chapter you have read in its own key sentences, cited")
    p.add_argument("book")
    p.add_argument("--spoilers", action="store_true", help="the whole book, past your reading position")
    _provider_options(p, "with a provider: each chapter summarised by it (kept), citing the book")
    p = add("dict", cmd_dict, "your dictionaries: import a StarDict, dictd or CC-CEDICT one, list or remove them")
    p.add_argument("action", nargs="?", choices=["import", "list", "remove"], default="list")
    p.add_argument("paths", nargs="*", help="import: the dictionary's files or folder; remove: its numbers")
    p = add("define", cmd_define, "look a word up in your dictionaries, offline (its lemma too: ran finds run)")
    p.add_argument("word", type=_words)
    p.add_argument("--book", help="the book it was read in (its language chooses the lemmas)")
    p = add("translate", cmd_translate, "a paragraph translated by your AI provider (kept once translated)")
    p.add_argument("book")
    p.add_argument("locator", help="the paragraph's place, as 'quire show' and citations give it (e.g. 3.5)")
    p.add_argument("--to", help="the language code to translate into (default: English, or Chinese for English)")
    _provider_options(p)
    p = add("speak", cmd_speak, "read aloud from your place (or LOC) with a system voice (or --voice joe) into a WAV")
    p.add_argument("book")
    p.add_argument("locator", nargs="?", help="where to start (default: where you are reading)")
    p.add_argument("-n", type=_count(10_000), default=10, help="how many sentences (default 10)")
    p.add_argument("-o", "--output", help="the WAV file to write")
    p.add_argument("--rate", type=_count(600), default=DEFAULT_SPEECH_RATE,
                   help=f"words a minute (default {DEFAULT_SPEECH_RATE})")  # fmt: skip
    p.add_argument("--voice", choices=["system", "joe"], default="system",
                   help="system: the system's voice for the book's language; joe: the natural offline voice (English)")  # fmt: skip
    p = add("opds", cmd_opds, "OPDS catalogs (calibre, Calibre-Web…): add, list, remove, browse, search, get")
    p.add_argument("action", nargs="?", choices=["add", "list", "remove", "browse", "search", "get"], default="list")
    p.add_argument("rest", nargs="*", metavar="ARG",
                   help="add URL | remove N | browse URL-or-N | search URL-or-N QUERY | get FEED-URL-or-N ENTRY_ID")  # fmt: skip
    p.add_argument("--user", help="the catalog's user; the password comes from $QUIRE_OPDS_PASSWORD or a prompt")
    p.add_argument("--title", help="add: the catalog's name (default: its feed's title)")
    p = add("koreader", cmd_koreader, "KOReader's highlights: import DIR or export DIR (an e-reader's folder)")
    p.add_argument("action", choices=["import", "export"])
    p.add_argument("folder", help="the folder with the books and their .sdr sidecars")
    p = add("readwise", cmd_readwise, "Readwise: setup [--url URL] (token from $QUIRE_READWISE_TOKEN), off, or send")
    p.add_argument("action", nargs="?", choices=["send", "setup", "off"], default="send")
    p.add_argument("--url", help="setup: Readwise's address (default https://readwise.io)")
    p = add("kosync", cmd_kosync, "KOReader progress sync: setup URL --user U [--register], off, or [BOOK]")
    p.add_argument("what", nargs="*", metavar="ARG", help="setup URL | off | BOOK (default: every book opened)")
    p.add_argument("--user", help="setup: the user; the password comes from $QUIRE_KOSYNC_PASSWORD or a prompt")
    p.add_argument("--register", action="store_true", help="setup: create the user on the server first")
    p = add("stats", cmd_stats, "your reading: time, sessions, characters, days and weeks, speed and time left")
    p.add_argument("book", nargs="?", help="one book (default: all)")
    p = add("export", cmd_export, "export a book's highlights and notes (or, with --vault, every book's)")
    p.add_argument("book", nargs="?")
    p.add_argument("--vault", help="an Obsidian vault's folder: a note per book, updated in Quire's part only")
    p.add_argument("--create", action="store_true", help="with --vault: make the folder when it is not there")
    p.add_argument("--format", choices=["md", "json"], default="md")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")
    return parser


HINTS: dict[type[QuireError], str] = {  # the command line's own advice, after the core's message
    BookNotFoundError: "run 'quire list' to see the library",
    ModelUnavailableError: "'quire index BOOK --embedder NAME' downloads an on-device model, 'quire models' lists them",
    SecretStoreError: "or, without a keyring, give the secret in the environment: $QUIRE_SYNC_PASSWORD for sync, "
    "$QUIRE_OPDS_PASSWORD for a catalog, $QUIRE_KOSYNC_PASSWORD for KOReader sync, "
    "the provider's variable (e.g. $DEEPSEEK_API_KEY) for the AI",
}


def _report(error: QuireError) -> None:
    """One line on stderr: the core's message, and what to type next where the command line knows it."""
    hint = next((text for kind, text in HINTS.items() if isinstance(error, kind)), "")
    print(f"quire: error: {error}" + (f" ({hint})" if hint else ""), file=sys.stderr)


def main(argv: Sequence[str] | None = None, platform: Platform | None = None) -> int:
    """Run the CLI on this computer's adapters (or those given); errors go to stderr as one line, exit code non-zero."""
    args = build_parser().parse_args(argv)
    configure_logging(command_line=True)
    for name, value in vars(args).items():
        words = value if isinstance(value, list) else [value]
        if any(isinstance(w, str) and _NOT_UTF8.search(w) for w in words):  # bytes the terminal's UTF-8 is not
            print(f"quire: error: {name.replace('_', '-')} holds bytes that are not UTF-8 text: "
                  "check the terminal's encoding, or type it again", file=sys.stderr)  # fmt: skip
            return 2
    args.platform = platform or current_platform()
    try:
        if args.library is not None and not args.library.strip():
            raise LibraryError("--library was given an empty folder name: name the folder, or leave the option out")
        quire = Quire(args.library or default_library_dir(args.platform.paths.data_dir()))
    except QuireError as error:
        _report(error)
        return 2
    settings = SettingsStore(quire.folder, args.platform.secrets)
    quire.local_only = settings.load().local_only  # the app's switch holds here too
    if settings.problem:
        state = "on, as it was" if quire.local_only else "off, as it was"
        print(f"quire: warning: the settings did not read ({settings.problem}); local-only stays {state}",
              file=sys.stderr)  # fmt: skip
    shown = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = PrintableStream(sys.stdout), PrintableStream(sys.stderr)
    try:
        named = isinstance(getattr(args, "book", None), str) and args.book.strip()
        if named and not getattr(args, "every_book", False):  # with --all the one word given is the query
            args.book = quire.open(args.book).id  # the book named once: the command's calls go by its id
        return int(args.handler(quire, args))
    except QuireError as error:
        _report(error)
        return 1
    except BrokenPipeError:
        # The reader of our output left (quire list | head): stop quietly, as Unix tools do. Python would report
        # the pipe again when it flushes stdout at exit, so stdout goes to /dev/null first (the Python docs' way).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell shows for a tool stopped by a closed pipe
    finally:
        sys.stdout, sys.stderr = shown
        quire.close()


if __name__ == "__main__":
    sys.exit(main())
