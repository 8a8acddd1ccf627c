"""Chat threads: messages stored as ordered parts, enough to rebuild the model's history exactly."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.agent.message import Message, Part
from core.errors import QuireError
from core.library.db import inserted_id, now
from core.library.store import Library

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage


@dataclass(frozen=True, slots=True)
class ThreadInfo:
    """A conversation in the list of a book's (or the library's) chats."""

    id: int
    title: str
    updated_at: str  # ISO time of its last message


class ChatStore:
    """Threads and messages in the library database."""

    def __init__(self, library: Library) -> None:
        self.library = library

    def new_thread(self, book_id: int | None, title: str) -> int:
        stamp = now()
        cursor = self.library.write(
            "INSERT INTO threads (book_id, title, created_at, updated_at) VALUES (?,?,?,?)",
            (book_id, title[:80], stamp, stamp),
        )
        return inserted_id(cursor)

    def check_thread(self, thread_id: int, book_id: int | None) -> None:
        """Raise QuireError unless ``thread_id`` is a conversation about ``book_id``."""
        row = self.library.conn.execute("SELECT book_id FROM threads WHERE id = ?", (thread_id,)).fetchone()
        if row is None:
            raise QuireError(f"there is no conversation {thread_id}: start a new one")
        if row["book_id"] != book_id:
            raise QuireError(f"conversation {thread_id} is about another book: continue it there, or start a new one")

    def threads(self, book_id: int | None) -> list[ThreadInfo]:
        rows = self.library.conn.execute(
            "SELECT id, title, updated_at FROM threads WHERE book_id IS ? ORDER BY updated_at DESC, id DESC", (book_id,)
        )
        return [ThreadInfo(r["id"], r["title"], r["updated_at"]) for r in rows]

    def rename(self, thread_id: int, title: str) -> None:
        self.library.write("UPDATE threads SET title = ? WHERE id = ?", (title.strip()[:80] or "…", thread_id))

    def delete(self, thread_id: int) -> None:
        """Remove a thread; its messages and their parts go with it (foreign keys cascade)."""
        self.library.write("DELETE FROM threads WHERE id = ?", (thread_id,))

    def drop_last_exchange(self, thread_id: int) -> str | None:
        """Remove the last question and its answer (to ask it again); returns the question, or None."""
        rows = self.library.conn.execute(
            "SELECT id, role FROM messages WHERE thread_id = ? ORDER BY id DESC LIMIT 2", (thread_id,)
        ).fetchall()
        question = next((r for r in rows if r["role"] == "user"), None)
        if question is None:
            return None
        text = next(m.text for m in self.messages(thread_id) if m.id == question["id"])
        doomed = [r["id"] for r in rows if r["id"] >= question["id"]]
        self.library.write(f"DELETE FROM messages WHERE id IN ({','.join('?' * len(doomed))})", tuple(doomed))
        return text

    def add_message(self, thread_id: int, role: str, parts: list[Part], status: str = "complete") -> int:
        with self.library.transaction() as conn:
            message_id = inserted_id(
                conn.execute(
                    "INSERT INTO messages (thread_id, role, status, created_at) VALUES (?,?,?,?)",
                    (thread_id, role, status, now()),
                )
            )
            conn.executemany(
                "INSERT INTO message_parts VALUES (?,?,?,?)",
                [
                    (message_id, i, p.kind, json.dumps({**p.stored(), "turn": p.turn}, ensure_ascii=False))
                    for i, p in enumerate(parts)
                ],
            )
            conn.execute("UPDATE threads SET updated_at = ? WHERE id = ?", (now(), thread_id))
        return message_id

    def messages(self, thread_id: int) -> list[Message]:
        """A thread's messages in order, each with its parts as they streamed."""
        thread = self.library.conn.execute("SELECT book_id FROM threads WHERE id = ?", (thread_id,)).fetchone()
        book_id = (thread["book_id"] if thread else None) or 0
        result = []
        for row in self.library.conn.execute(
            "SELECT * FROM messages WHERE thread_id = ? ORDER BY id", (thread_id,)
        ).fetchall():
            message = Message(row["role"], row["status"], id=row["id"], book_id=book_id)
            for part in self.library.conn.execute(
                "SELECT kind, data FROM message_parts WHERE message_id = ? ORDER BY idx", (row["id"],)
            ):
                data = json.loads(part["data"])
                message.parts.append(Part(part["kind"], data, data.pop("turn", 0)))
            result.append(message)
        return result

    def history(self, thread_id: int) -> list[BaseMessage]:
        """The thread as LangChain messages: tool call ids, results and DeepSeek reasoning included."""
        from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # the agent's only

        history: list[BaseMessage] = []
        for message in self.messages(thread_id):
            if message.role == "user":
                history.append(HumanMessage(message.text))
                continue
            turns: dict[int, list[Part]] = {}
            for part in message.parts:
                turns.setdefault(part.turn, []).append(part)
            for parts in turns.values():
                calls = [p.data for p in parts if p.kind == "tool_call" and p.data.get("args") is not None]
                reasoning = "".join(p.data["text"] for p in parts if p.kind == "reasoning")
                text = "".join(p.data["text"] for p in parts if p.kind == "text")
                extra = {"reasoning_content": reasoning} if reasoning else {}
                tool_calls = [{"id": c["id"], "name": c["name"], "args": c["args"], "type": "tool_call"} for c in calls]
                history.append(AIMessage(content=text, tool_calls=tool_calls, additional_kwargs=extra))
                history += [
                    ToolMessage(
                        c.get("result", "(no result: the run was stopped)"), tool_call_id=c["id"], name=c["name"]
                    )
                    for c in calls
                ]
        return history
