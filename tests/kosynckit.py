"""A KOReader sync server for tests, following koreader-sync-server's API (v1) as documented in its README and
code: users created with POST /users/create (402 when taken, 403 when refused), checked with GET /users/auth and
the x-auth-user / x-auth-key headers (401), progress by PUT /syncs/progress and GET /syncs/progress/{document}
(an empty object when none). Every request is recorded; it runs on 127.0.0.1 (tests/httpkit.py)."""

from __future__ import annotations

import json
import time

from httpkit import LocalServer, Reply, Request


class KosyncServer(LocalServer):
    """Users and their documents' progress, in memory; ``registration`` off answers 403 to new users."""

    def __init__(self, registration: bool = True) -> None:
        self.users: dict[str, str] = {}
        self.documents: dict[tuple[str, str], dict] = {}
        self.registration = registration
        super().__init__(self._answer)

    def _error(self, status: int, code: int, message: str) -> Reply:
        return Reply(status, {"code": code, "message": message})

    def _answer(self, request: Request) -> Reply:
        path = request.path.split("?")[0]
        if path == "/healthcheck":
            return Reply(200, {"state": "OK"})
        if request.method == "POST" and path == "/users/create":
            body = json.loads(request.body or b"{}")
            user, key = body.get("username"), body.get("password")
            if not self.registration or not user or not key:
                return self._error(403, 2003, "Invalid request")
            if user in self.users:
                return self._error(402, 2002, "Username is already registered.")
            self.users[user] = key
            return Reply(201, {"username": user})
        user = request.headers.get("x-auth-user", "")
        if not user or self.users.get(user) != request.headers.get("x-auth-key"):
            return self._error(401, 2001, "Unauthorized")
        if request.method == "GET" and path == "/users/auth":
            return Reply(200, {"authorized": "OK"})
        if request.method == "PUT" and path == "/syncs/progress":
            body = json.loads(request.body or b"{}")
            if not body.get("document"):
                return self._error(403, 2004, "Field 'document' not provided.")
            stamp = int(time.time())
            self.documents[(user, body["document"])] = {**{k: body.get(k) for k in (
                "progress", "percentage", "device", "device_id")}, "timestamp": stamp}  # fmt: skip
            return Reply(200, {"document": body["document"], "timestamp": stamp})
        if request.method == "GET" and path.startswith("/syncs/progress/"):
            document = path.rsplit("/", 1)[1]
            found = self.documents.get((user, document))
            return Reply(200, {**found, "document": document} if found else {})
        return self._error(404, 2000, "Not found")
