"""A local OpenAI-compatible chat server (SSE streaming) on 127.0.0.1, port 0, for end-to-end tests.

Each scripted response is a list of deltas (or ``{"deltas": [...], "delay": s}`` to stream them slowly) (``{"reasoning_content": ...}``, ``{"content": ...}``,
``{"tool_calls": [...]}``), or an int status code to fail with, or ``("cut", deltas)`` to drop the
connection after those deltas. ``strict_deepseek`` answers 400 when an assistant turn that called
tools comes back without its ``reasoning_content``, as DeepSeek's thinking mode does.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def tool_call_deltas(call_id: str, name: str, args: dict, index: int = 0) -> list[dict]:
    """A tool call as providers stream it: the name first, then the arguments in pieces."""
    text = json.dumps(args)
    half = len(text) // 2
    return [
        {
            "tool_calls": [
                {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
            ]
        },
        {"tool_calls": [{"index": index, "function": {"arguments": text[:half]}}]},
        {"tool_calls": [{"index": index, "function": {"arguments": text[half:]}}]},
    ]


class OpenAIMock:
    def __init__(self, responses: list, *, strict_deepseek: bool = False) -> None:
        self.responses = list(responses)
        self.strict_deepseek = strict_deepseek
        self.requests: list[dict] = []
        self.dropped = 0  # streams the client hung up on
        self.models = ["test-model", "deepseek-reasoner"]
        self.refused_keys = {"Bearer sk-revoked"}
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # GET /v1/models: what "Test connection" asks
                mock.requests.append({"path": self.path, "headers": dict(self.headers), "body": None})
                if self.headers.get("authorization", "") in mock.refused_keys:
                    return self._status(401, "Incorrect API key provided")
                payload = json.dumps({"object": "list", "data": [{"id": m, "object": "model"} for m in mock.models]})
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload.encode())

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                mock.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if mock.strict_deepseek and any(
                    m.get("role") == "assistant" and m.get("tool_calls") and not m.get("reasoning_content")
                    for m in body["messages"]
                ):
                    return self._status(400, "Missing `reasoning_content` field in the assistant message")
                script = mock.responses.pop(0) if mock.responses else [{"content": "(no script)"}]
                if isinstance(script, int):
                    return self._status(script, "scripted failure")
                delay = 0.0
                if isinstance(script, dict):  # {"deltas": [...], "delay": seconds between deltas}
                    delay, script = script.get("delay", 0.0), script["deltas"]
                cut = isinstance(script, tuple)
                deltas = script[1] if cut else script
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                for delta in deltas:
                    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": body["model"],
                             "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}  # fmt: skip
                    try:
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                    except (BrokenPipeError, ConnectionResetError):  # the client stopped reading
                        mock.dropped += 1
                        return
                    time.sleep(delay)
                if cut:
                    self.wfile.write(b'data: {"id": "chatcmpl-1", "choi')
                    self.wfile.flush()
                    self.close_connection = True
                    return
                finish = "tool_calls" if any("tool_calls" in d for d in deltas) else "stop"
                last = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": body["model"],
                        "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}  # fmt: skip
                try:
                    self.wfile.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n".encode())
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):  # stopped after the last delta, as the above
                    mock.dropped += 1
                self.close_connection = True

            def _status(self, status: int, message: str) -> None:
                payload = json.dumps(
                    {"error": {"message": message, "type": "invalid_request_error", "code": status}}
                ).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.send_header("connection", "close")
                self.end_headers()
                self.wfile.write(payload)
                self.close_connection = True

            def log_message(self, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> OpenAIMock:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
