"""Request bodies are limited before they are stored: by their declared length, and by a cap on
what streams in without one."""

from __future__ import annotations

import asyncio

from django.test import override_settings

from reviewapp.asgi import DeclaredBodyLimit


class App:
    def __init__(self) -> None:
        self.read = 0
        self.responded = False

    async def __call__(self, scope, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            self.read += len(message.get("body", b""))
            if not message.get("more_body"):
                break
        self.responded = True
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def _run(headers, chunks):
    app, sent = App(), []
    queue = [
        {"type": "http.request", "body": chunk, "more_body": i + 1 < len(chunks)}
        for i, chunk in enumerate(chunks)
    ]

    async def receive():
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/api/contracts/", "headers": headers}
    asyncio.run(DeclaredBodyLimit(app)(scope, receive, send))
    return app, sent


@override_settings(UPLOAD_MAX_BYTES=1000, DATA_UPLOAD_MAX_MEMORY_SIZE=100)
def test_a_chunked_body_past_the_limit_is_cut_off_with_a_413():
    app, sent = _run([(b"transfer-encoding", b"chunked")], [b"x" * 600] * 10)
    assert sent[0]["status"] == 413 and b"TOO_LARGE" in sent[1]["body"]
    assert not app.responded and app.read <= 1200


@override_settings(UPLOAD_MAX_BYTES=1000, DATA_UPLOAD_MAX_MEMORY_SIZE=100)
def test_a_declared_length_past_the_limit_is_refused_unread():
    app, sent = _run([(b"content-length", b"5000000")], [b"x" * 600])
    assert sent[0]["status"] == 413 and app.read == 0


@override_settings(UPLOAD_MAX_BYTES=1000, DATA_UPLOAD_MAX_MEMORY_SIZE=100)
def test_a_body_within_the_limit_goes_through():
    app, sent = _run([], [b"x" * 500, b"y" * 500])
    assert sent[0]["status"] == 200 and app.read == 1000
