"""One question in a thread: run the agent (or the offline answer), stream events, store the message."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from core.agent.events import AgentEvent, CitationEvent, Done, ErrorEvent, TextDelta, ThreadEvent, fence_receipt
from core.agent.message import Message, MessageFold, Part
from core.agent.offline import MIGHT_ANSWER, NOT_ANSWERED, answer_library, answer_offline
from core.agent.provider_config import ProviderConfig
from core.errors import LocalOnlyError, QuireError
from core.network_policy import NetworkPolicy, is_local_url
from core.secrets import SecretStore

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from core.agent.reading_library import ReadingLibrary
    from core.agent.threads_store import ChatStore
    from core.rag.search import Passage


@dataclass(frozen=True)
class Question:
    """One question as ``Quire.ask`` hands it over: the book, the thread, who answers, what the reader selected."""

    book_id: int | None
    text: str
    thread_id: int | None = None
    provider: ProviderConfig | None = None
    model: BaseChatModel | None = None
    spoilers: bool = False
    secrets: SecretStore | None = None
    selection: str = ""
    recap: bool = False  # "the story so far": offline, the chapters read told in their own key sentences


def ask(
    quire: ReadingLibrary, store: ChatStore, network: NetworkPolicy, asked: Question
) -> Generator[AgentEvent, None, None]:
    """Events of one answer; the question and the answer (even a stopped one) are saved to the thread.

    Called through ``Quire.ask``, which hands over its chat store and network policy.
    """
    book_id, question, thread_id, provider, model = (
        asked.book_id, asked.text, asked.thread_id, asked.provider, asked.model
    )  # fmt: skip
    if not question.strip():
        raise QuireError("the question is empty: ask something about the book")
    if thread_id is None:
        thread_id = store.new_thread(book_id, question)
    else:
        store.check_thread(thread_id, book_id)
    history = store.history(thread_id) if provider is not None or model is not None else []  # the agent's
    store.add_message(thread_id, "user", [Part("text", {"text": question})])
    answer = Message("assistant", status="stopped")  # until the run says otherwise (a consumer may stop early)
    fold = MessageFold(answer)
    fence = _fence(quire, book_id) if not asked.spoilers and book_id is not None else None
    sent: Callable[[], list[dict[str, Any]]] | None = None  # with a provider: the numbered passages it was given
    try:
        yield ThreadEvent(thread_id)
        if provider is None and model is None and asked.recap and book_id is not None:
            events = quire.companion.recap_events(book_id, spoilers=asked.spoilers)
        elif provider is None and model is None:
            events = _offline_events(quire, book_id, question, asked.spoilers)
        elif provider is not None and network.local_only and not is_local_url(provider.url):
            events = _refused(network, provider)
        else:  # LangChain and the agent load here: an offline answer needs neither (243 MB once, for nothing)
            from core.agent.providers import make_chat_model
            from core.agent.runner import ReadingAgent
            from core.agent.tools import ReadingSession

            session = ReadingSession(quire, book_id, spoilers_allowed=asked.spoilers, selection=asked.selection)
            chat_model = model if model is not None else make_chat_model(_given(provider), asked.secrets, network)
            if asked.recap and book_id is not None:  # each chapter summarised once, from its key sentences
                key = provider.model if provider is not None else type(chat_model).__name__
                events = _guarded(quire.companion.recap_events(book_id, spoilers=asked.spoilers, model=chat_model,
                                                              model_key=key), provider)  # fmt: skip
            else:
                sent = partial(_sent, session.passages)  # the recap sends its chapters' key sentences instead
                events = _falling_back(
                    ReadingAgent(session, chat_model, provider=provider).stream(question, history),
                    lambda: _offline_events(quire, book_id, question, asked.spoilers),
                )
        cited: dict[int, None] = {}  # the library's answer: the books it quotes, in order
        for event in events:
            if isinstance(event, CitationEvent):
                cited.setdefault(event.citation.book_id)
            if isinstance(event, Done) and not asked.spoilers:  # the receipt: what the answer was allowed to use
                receipt = fence if fence is not None else library_fence(quire, list(cited))  # each book at its place
                event = replace(event, fence={**receipt, "sent": sent()} if sent is not None else receipt)
            fold.add(event)
            yield event
    finally:
        fold.end(answer.status)  # idempotent after Done; marks a stopped run's unanswered tool calls
        store.add_message(thread_id, "assistant", answer.parts, answer.status)


def _fence(quire: ReadingLibrary, book_id: int) -> dict[str, Any]:
    """The furthest place read when the question was asked: the bound every search and quote of the answer kept."""
    return fence_receipt(quire.position(book_id))


def library_fence(quire: ReadingLibrary, cited: list[int]) -> dict[str, Any]:
    """The receipt of an answer from the whole library: each book it quotes with the furthest place read in it (the
    bound its search kept there), and how many books were searched, each only as far as it was read."""
    positions = quire.positions()
    books = [{"book": book, **fence_receipt(positions.get(book))} for book in cited]
    return {"books": books, "searched": sum(1 for p in positions.values() if p.furthest_ordinal >= 0)}


def _sent(passages: dict[int, Passage]) -> list[dict[str, Any]]:
    """The numbered passages the provider was given, each by its number and its place (the receipt lists them)."""
    return [
        {"passage": n, "book": p.book_id, "start": str(p.start), "end": str(p.end)} for n, p in sorted(passages.items())
    ]


def _given(provider: ProviderConfig | None) -> ProviderConfig:
    """The provider, where the caller has already ruled out having neither a provider nor a model."""
    if provider is None:
        raise QuireError("no AI provider is set up")
    return provider


def _guarded(events: Iterator[AgentEvent], provider: ProviderConfig | None) -> Iterator[AgentEvent]:
    """Events from a provider outside the agent: a failure ends them with an error event, as the agent's do."""
    from core.agent.providers import describe_provider_error
    from core.agent.runner import PROVIDER_ERRORS

    try:
        yield from events
    except PROVIDER_ERRORS as error:
        yield ErrorEvent(describe_provider_error(error, provider) or "the AI provider failed", "ProviderError")
        yield Done("error")


def _falling_back(events: Iterator[AgentEvent], offline: Callable[[], Iterator[AgentEvent]]) -> Iterator[AgentEvent]:
    """The agent's events; when the provider could not be reached before it said anything, the offline answer
    instead, after a notice saying so (it was "cannot connect to localhost…" and nothing else)."""
    said = False
    for event in events:
        if isinstance(event, ErrorEvent) and event.error_type == "ProviderUnreachable" and not said:
            yield ErrorEvent(f"{event.message}; so this answer is from the book alone, offline", "ProviderUnreachable")
            yield from offline()
            return
        said |= isinstance(event, TextDelta)
        yield event


def _refused(network: NetworkPolicy, provider: ProviderConfig) -> Iterator[AgentEvent]:
    """Local-only mode and a remote provider: say so, contact nothing."""
    try:
        network.check(provider.url, f"the {provider.kind} provider")
    except LocalOnlyError as error:
        yield ErrorEvent(str(error), type(error).__name__)
    yield Done("error")


def _offline_events(quire: ReadingLibrary, book_id: int | None, question: str, spoilers: bool) -> Iterator[AgentEvent]:
    if book_id is None:
        answer = answer_library(quire, question, spoilers=spoilers)  # the library: each book at its own place
    else:
        answer = answer_offline(quire, book_id, question, spoilers=spoilers)
    if answer.notice in ("NotAnswered", "MightAnswer"):  # said first, in the reader's language; then the quotes
        yield ErrorEvent(NOT_ANSWERED if answer.notice == "NotAnswered" else MIGHT_ANSWER, answer.notice)
        yield TextDelta(answer.text)
    elif answer.notice:  # a sentence the client words in the reader's language, by its name
        yield ErrorEvent(answer.text, answer.notice)
    else:
        yield TextDelta(answer.text)
    for citation in answer.citations:
        yield CitationEvent(citation)
    yield Done(answered=answer.answered)
