"""The commands that reach other places: sync, opds, koreader, kosync, readwise."""

from __future__ import annotations

import argparse
import os
import sys

from app.cli.common import Add, ask_password, confirm, on_terminal, print_json, whole_number
from core import (
    OpdsFeed,
    Quire,
    QuireError,
    SyncFolderMissing,
)


def cmd_sync(quire: Quire, args: argparse.Namespace) -> int:
    """``sync setup TARGET``, ``sync status`` or ``sync`` (send and receive now)."""
    secrets = args.platform.secrets
    from_env = os.environ.get("QUIRE_SYNC_PASSWORD")  # works without a keyring: it is never stored
    if args.action == "setup":
        if not args.target:
            raise QuireError("say where to sync: quire sync setup https://dav.example.com/quire/ (or a folder)")
        password = from_env
        if "://" in args.target and args.user and password is None:
            password = ask_password(f"password for {args.user} at {args.target}: ", "QUIRE_SYNC_PASSWORD")
        options = {"book_files": not args.no_book_files, "max_book_mb": args.max_book_mb,
                   "remember_password": from_env is None}  # fmt: skip
        try:
            status = quire.sync.setup(args.target, args.user or "", password, secrets, create=args.create, **options)
        except SyncFolderMissing as missing:
            if not on_terminal():
                raise SyncFolderMissing(f"{missing} (give --create to make it)") from None
            if not confirm(f"{missing}. Create it? [y/N] "):
                raise
            status = quire.sync.setup(args.target, args.user or "", password, secrets, create=True, **options)
        if args.json:
            print_json(status.to_dict())
        else:
            print(f"sync is set up: {status.target} (this device is {status.device}); run 'quire sync'")
        return 0
    if args.target:
        raise QuireError(f"'{args.target}' is not understood here: quire sync [status | setup TARGET]")
    if args.action == "status":
        status = quire.sync.status(secrets, from_env)
        if args.json:
            print_json(status.to_dict())
            return 0
        last = status.last
        print(f"target: {status.target}  device: {status.device}  unsent edits: {status.unsent_edits}"
              f"  unsent change files: {status.unsent_files}")  # fmt: skip
        print(f"last sync: {last.finished_at}, sent {last.sent}, received {last.received}" if last else "never synced")
        return 0
    report = quire.sync.run(secrets, from_env)
    if args.json:
        print_json(report.to_dict())
    else:
        print(f"sent {report.sent} change(s), received {report.received} from {report.files_read} file(s)")
        for title in report.books_sent:
            print(f"  book sent: {title}")
        for title in report.books_received:
            print(f"  book received: {title}")
        for warning in report.warnings:
            print(f"  warning: {warning}", file=sys.stderr)
    return 0


def _opds_login(args: argparse.Namespace) -> dict[str, str]:
    """--user, with the password from $QUIRE_OPDS_PASSWORD (never stored from there) or a prompt."""
    if not args.user:
        return {}
    password = os.environ.get("QUIRE_OPDS_PASSWORD")
    if password is None:
        password = ask_password(f"password for {args.user} at the catalog: ", "QUIRE_OPDS_PASSWORD")
    return {"user": args.user, "password": password}


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
            print_json([c.to_dict() for c in catalogs])
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
            print_json(info.to_dict())
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
            print_json(result.to_dict())
        else:
            print(f"{'imported' if result.created else 'already in the library'}: {result.book.title}")
        return 0
    if args.action == "search":
        feed = quire.catalogs.search(args.rest[0], " ".join(args.rest[1:]), secrets, **login)
    else:
        feed = quire.catalogs.browse(args.rest[0], secrets, **login)
    if args.json:
        print_json(feed.to_dict())
    else:
        _print_feed(feed)
    return 0


def cmd_koreader(quire: Quire, args: argparse.Namespace) -> int:
    """``quire koreader import|export DIR``: highlights and notes from KOReader's sidecars, or into them."""
    if args.action == "export":
        sent = quire.koreader.export_highlights(args.folder)
        if args.json:
            print_json([r.to_dict() for r in sent])
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
        print_json([r.to_dict() for r in results])
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
            password = ask_password(f"KOReader sync password for {args.user}: ", "QUIRE_KOSYNC_PASSWORD")
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
    book = quire.open(what[0]).id if what else None  # the book named once, here at the edge
    results = quire.kosync.sync(book, secrets, password)
    if args.json:
        print_json([r.to_dict() for r in results])
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
        token = os.environ.get("QUIRE_READWISE_TOKEN") or ask_password(
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
        print_json(result.to_dict())
    else:
        print(f"Sent {result.sent} highlights of {result.books} books to Readwise; {result.unchanged} already there")
    return 0


def register(add: Add) -> None:
    """Add this group's commands to the parser."""
    p = add("sync", cmd_sync, "sync places, notes and books with your other devices (a folder or WebDAV)")
    p.add_argument("action", nargs="?", choices=["setup", "status"], help="without one: sync now")
    p.add_argument("target", nargs="?", help="with setup: an https:// WebDAV folder, or a folder on this computer")
    p.add_argument("--user", help="the WebDAV user; the password comes from $QUIRE_SYNC_PASSWORD or a prompt")
    p.add_argument("--no-book-files", action="store_true", help="sync places and notes only, not the book files")
    p.add_argument(
        "--max-book-mb", type=whole_number(100_000), default=200, help="book files larger stay on this device"
    )
    p.add_argument("--create", action="store_true", help="with setup: create the sync folder when it is not there")
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
