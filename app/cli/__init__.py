"""The ``quire`` command line: a thin client of the core facade (``core.services.Quire``), like the Flet app; a module
per command group (books, companion, elsewhere), each adding its own commands to the parser."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from app.cli import books, companion, elsewhere
from app.cli.common import NOT_UTF8, Handler, Parser
from app.cli.terminal import PrintableStream
from app.logs import configure_logging
from app.settings import SettingsStore
from core import (
    BookNotFoundError,
    LibraryError,
    ModelUnavailableError,
    Quire,
    QuireError,
    SecretStoreError,
    default_library_dir,
)
from platform_adapters import Platform, current_platform


def build_parser() -> argparse.ArgumentParser:
    def common_options(default: object) -> Parser:
        # Accepted before and after the command. After it, an unset option must not overwrite the value given
        # before it (argparse copies a sub-command's defaults over the main parser's), hence SUPPRESS there.
        options = Parser(add_help=False)
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
    parser = Parser(
        prog="quire", description="Quire: read, search and annotate your books.", parents=[common_options(None)]
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        command = sub.add_parser(name, help=help_text, description=help_text, parents=[common])
        command.set_defaults(handler=handler)
        return command

    for group in (books, companion, elsewhere):
        group.register(add)
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
        if any(isinstance(w, str) and NOT_UTF8.search(w) for w in words):  # bytes the terminal's UTF-8 is not
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
        named = isinstance(getattr(args, "book", None), str)  # a blank one too: refused here, with the choices
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
