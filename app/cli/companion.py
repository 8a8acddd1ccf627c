"""The reading companion's commands: models, index, search, ask, recap, xray, dict, define, translate, speak."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable
from typing import Any

from app.cli.common import (
    Add,
    book_and_words,
    http_url,
    nonempty_text,
    print_json,
    provider_config,
    provider_options,
    whole_number,
)
from core import (
    DEFAULT_SPEECH_RATE,
    MODES,
    XRAY_KINDS,
    AgentEvent,
    Correction,
    IndexStatus,
    Quire,
    QuireError,
)


def _progress_bar(status: IndexStatus) -> None:
    width = 30
    filled = int(width * status.fraction)
    eta = f", about {status.eta_seconds:.0f}s left" if status.eta_seconds else ""
    line = f"\r[{'#' * filled}{'.' * (width - filled)}] {status.done}/{status.total} chunks, {status.rate:.1f}/s{eta}"
    print(line, end="" if status.status == "running" else "\n", file=sys.stderr, flush=True)


def _download_bar(done: int, total: int | None) -> None:
    size = f"{done / 1e6:.1f}" + (f" of {total / 1e6:.1f}" if total else "")
    print(f"\rdownloading the model: {size} MB", end="", file=sys.stderr, flush=True)


JAPANESE_NAMES = "X-Ray reads the names of English and Chinese books; it does not read Japanese names yet."


def cmd_models(quire: Quire, args: argparse.Namespace) -> int:
    models = quire.models.status()
    if args.json:
        print_json([model.to_dict() for model in models])
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
        print_json(status.to_dict())
    return 0


def cmd_search(quire: Quire, args: argparse.Namespace) -> int:
    book, query = book_and_words(args, "query")
    if book is None:
        if args.before:
            raise QuireError("--before is one book's place: with --all each book stops at your furthest place there")
        passages = quire.search_library(query, mode=args.mode, k=args.k, spoilers=args.spoilers)
    else:
        passages = quire.search(book, query, mode=args.mode, k=args.k, before=args.before)
    if args.json:
        print_json([p.to_dict() for p in passages])
        return 0
    status = quire.index_status(book) if book is not None else None
    if book is not None and quire.book(book).char_count == 0:  # pictures only: indexing would not help
        print("This book's pages are pictures (a scan or a comic): it has no text to search.", file=sys.stderr)
    elif book is not None and args.mode != "keyword" and (status is None or status.done == 0):
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


def cmd_ask(quire: Quire, args: argparse.Namespace) -> int:
    book, question = book_and_words(args, "question")
    provider = provider_config(args)
    book_id = quire.book(book).id if book is not None else None
    secrets = args.platform.secrets if provider is not None else None
    events = quire.ask(
        book_id, question, thread_id=args.thread, provider=provider, spoilers=args.spoilers, secrets=secrets
    )
    titles = {b.id: b.title for b in quire.books()} if book_id is None else None
    return _print_events(events, args.json, titles)


def cmd_recap(quire: Quire, args: argparse.Namespace) -> int:
    provider = provider_config(args)
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


def cmd_xray(quire: Quire, args: argparse.Namespace) -> int:
    said = _correct_xray(quire, args)
    if args.corrections:
        found = quire.companion.corrections(args.book)
        if args.json:
            print_json([c.to_dict() for c in found])
        for correction in [] if args.json else found:
            print(f"  {correction.name}: {_said(correction)}")
        if not found and not args.json:
            print("No corrections: X-Ray shows what it found.")
        return 0
    entries = quire.companion.xray(args.book, spoilers=args.spoilers)
    if args.json:
        print_json([entry.to_dict() for entry in entries])
        return 0
    for line in said:
        print(line)
    if not entries:
        read = quire.position(args.book)
        if not quire.companion.reads_names(args.book):
            print(JAPANESE_NAMES)
        else:
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
            print_json([info.to_dict() for info in added])
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
        print_json([info.to_dict() for info in dictionaries])
    elif not dictionaries:
        print("No dictionaries yet: 'quire dict import FILE' adds a StarDict, dictd or CC-CEDICT dictionary.")
    for info in dictionaries if not args.json else []:
        print(f"{info.id}. {info.name} ({info.kind}): {info.words} headwords")
    return 0


def cmd_define(quire: Quire, args: argparse.Namespace) -> int:
    found = quire.dictionary.define(args.word, args.book)
    if args.json:
        print_json([d.to_dict() for d in found])
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


def cmd_translate(quire: Quire, args: argparse.Namespace) -> int:
    provider = provider_config(args)
    if provider is None:
        raise QuireError("translating needs an AI provider: --provider NAME --model NAME (see 'quire ask --help')")
    target = args.to or quire.translation.target(args.book, "en")
    text = quire.translation.paragraph(args.book, args.locator, target, provider, args.platform.secrets)
    if args.json:
        print_json({"locator": args.locator, "to": target, "text": text})
    else:
        print(text)
    return 0


def cmd_speak(quire: Quire, args: argparse.Namespace) -> int:
    if not args.output:
        raise QuireError("say where to write the audio: -o FILE.wav (read-aloud in the app speaks as you read)")
    spoken = quire.speech.save(args.book, args.output, args.locator, args.n, args.rate, args.voice)
    if args.json:
        print_json([s.to_dict() for s in spoken])
        return 0
    for sentence in spoken:
        print(f"{sentence.audio_start:7.2f}s  [{sentence.start}]  {' '.join(sentence.text.split())[:100]}")
    print(f"Wrote {args.output}: {spoken[-1].audio_end:.1f} s of audio.")
    return 0


def register(add: Add) -> None:
    """Add this group's commands to the parser."""
    p = add("index", cmd_index, "embed a book for semantic search (resumes an interrupted run)")
    p.add_argument("book")
    p.add_argument(
        "--embedder", help="a model (all-MiniLM-L6-v2, bge-small-zh-v1.5, ...) or openai:MODEL / ollama:MODEL"
    )
    p.add_argument(
        "--base-url", type=http_url, help="endpoint of a remote embedder; its key comes from $QUIRE_EMBEDDING_API_KEY"
    )
    add("models", cmd_models, "list the on-device embedding models")
    every = "every book, each as far as you have read it (give no book)"
    p = add("search", cmd_search, "find the passages that answer a question (keyword + semantic)")
    p.add_argument("book", nargs="?", help="the book (with --all: the query)")
    p.add_argument("query", nargs="?")
    p.add_argument("--all", action="store_true", dest="every_book", help=f"search {every}")
    p.add_argument("--mode", choices=MODES, default="hybrid")
    p.add_argument("--k", type=whole_number(100), default=5, help="how many passages (default 5, at most 100)")
    p.add_argument("--before", metavar="LOCATOR", help="never return text after this locator (spoiler bound)")
    p.add_argument("--spoilers", action="store_true", help="with --all: also past your place in each book")
    p = add("ask", cmd_ask, "ask about a book; without --provider: the passages that answer it, cited")
    p.add_argument("book", nargs="?", help="the book (with --all: the question)")
    p.add_argument("question", nargs="?")
    p.add_argument("--all", action="store_true", dest="every_book", help=f"ask {every}")
    p.add_argument("--spoilers", action="store_true", help="also search past your reading position")
    p.add_argument("--thread", type=whole_number((1 << 63) - 1), help="continue this thread (default: a new one)")
    provider_options(p)
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
    provider_options(p, "with a provider: each chapter summarised by it (kept), citing the book")
    p = add("dict", cmd_dict, "your dictionaries: import a StarDict, dictd or CC-CEDICT one, list or remove them")
    p.add_argument("action", nargs="?", choices=["import", "list", "remove"], default="list")
    p.add_argument("paths", nargs="*", help="import: the dictionary's files or folder; remove: its numbers")
    p = add("define", cmd_define, "look a word up in your dictionaries, offline (its lemma too: ran finds run)")
    p.add_argument("word", type=nonempty_text)
    p.add_argument("--book", help="the book it was read in (its language chooses the lemmas)")
    p = add("translate", cmd_translate, "a paragraph translated by your AI provider (kept once translated)")
    p.add_argument("book")
    p.add_argument("locator", help="the paragraph's place, as 'quire show' and citations give it (e.g. 3.5)")
    p.add_argument("--to", help="the language code to translate into (default: English, or Chinese for English)")
    provider_options(p)
    p = add("speak", cmd_speak, "read aloud from your place (or LOC) with a system voice (or --voice joe) into a WAV")
    p.add_argument("book")
    p.add_argument("locator", nargs="?", help="where to start (default: where you are reading)")
    p.add_argument("-n", type=whole_number(10_000), default=10, help="how many sentences (default 10)")
    p.add_argument("-o", "--output", help="the WAV file to write")
    p.add_argument("--rate", type=whole_number(600), default=DEFAULT_SPEECH_RATE,
                   help=f"words a minute (default {DEFAULT_SPEECH_RATE})")  # fmt: skip
    p.add_argument("--voice", choices=["system", "joe"], default="system",
                   help="system: the system's voice for the book's language; joe: the natural offline voice (English)")  # fmt: skip
