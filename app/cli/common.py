"""What every command shares: the one-line argument errors, argument types, JSON, prompts and counts."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from typing import NoReturn

import httpx

from core import (
    PROVIDERS,
    ProviderConfig,
    Quire,
    QuireError,
)


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line (not the whole usage block), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"quire: error: {message} (see '{self.prog} --help')\n")


def whole_number(limit: int) -> Callable[[str], int]:
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


def nonempty_text(text: str) -> str:
    """An argparse type: text with something in it (a query, a question)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("it is empty: write a few words")
    return text


def http_url(text: str) -> str:
    """An argparse type: an http(s) URL with a host."""
    try:
        url = httpx.URL(text.strip())
    except (httpx.InvalidURL, TypeError, ValueError):
        url = None
    if url is None or url.scheme not in ("http", "https") or not url.host:
        raise argparse.ArgumentTypeError(f"'{text[:60]}' is not an http(s) URL, e.g. http://localhost:11434/v1")
    return str(url)


def print_json(value: object) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def provider_options(p: argparse.ArgumentParser, about: str = "") -> None:
    p.add_argument("--provider", choices=PROVIDERS, help=about or None)
    p.add_argument("--model", help="the provider's model name")
    p.add_argument(
        "--base-url",
        type=http_url,
        help="endpoint (defaults per provider); the API key comes from the keyring or the environment",
    )


def provider_config(args: argparse.Namespace) -> ProviderConfig | None:
    """The provider named by --provider/--model/--base-url (None: none, offline)."""
    if not args.provider:
        return None
    if not args.model:
        raise QuireError("say which model: --model NAME (e.g. gpt-4o-mini, deepseek-chat, llama3.1)")
    return ProviderConfig(args.provider, args.model, base_url=args.base_url or "")


def confirm(question: str) -> bool:
    """A yes typed at the terminal (anything else, or no answer, is a no)."""
    try:
        return input(question).strip().lower() in ("y", "yes")
    except (EOFError, KeyboardInterrupt):
        return False


def on_terminal() -> bool:
    """Whether a person can be asked at a terminal (stdin may be closed, ``<&-``, and then is None)."""
    return sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty()


NOT_UTF8 = re.compile("[\udc80-\udcff]")  # how Python keeps an argument's bytes that are no UTF-8


def ask_password(prompt: str, variable: str) -> str:
    """The password typed at a terminal; with none (a script, a pipe, stdin closed), a QuireError saying how to
    give it."""
    if not on_terminal():
        raise QuireError(f"no terminal to ask the password at: give it in ${variable} (it is not stored from there)")
    import getpass

    try:
        return getpass.getpass(prompt)
    except (EOFError, KeyboardInterrupt):
        raise QuireError(f"no password given: type it at the prompt, or give it in ${variable}") from None


def duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def counted(n: int, word: str) -> str:
    """ "1 session", "3 sessions"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def book_and_words(args: argparse.Namespace, name: str) -> tuple[str | None, str]:
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


Handler = Callable[[Quire, argparse.Namespace], int]
# How a command group adds a command: its name, its handler and its help; the parser it gets takes the arguments.
Add = Callable[[str, Handler, str], argparse.ArgumentParser]
