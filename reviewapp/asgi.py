"""HTTP and websockets in one ASGI application (served by uvicorn)."""

import json
import os
import re
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewapp.settings.local")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from reviewapp.realtime.origin import websocket_application  # noqa: E402
from reviewapp.realtime.routing import websocket_urlpatterns  # noqa: E402


class DeclaredBodyLimit:
    """Answers 413 to a request that declares a body over the upload limit, unread, and to one
    whose body grows past it while it streams in.

    Django's ASGI handler receives and spools the whole body before any view runs, so the
    upload view's own check would come after a 200 MB upload was stored. The limit is the
    file's plus what Django accepts for the rest of a request (the multipart envelope, fields).
    """

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.application(scope, receive, send)
            return
        limit = _body_limit(scope) + settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if _declared_length(scope) > limit:
            await _too_large(send, limit - settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
            return
        received = 0
        refused = False

        async def capped_receive() -> dict[str, Any]:
            """A body sent without a length (chunked) is cut off at the same limit: the client
            gets the 413, the application a disconnect, so nothing past the limit is stored."""
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    await _too_large(send, limit - settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
                    return {"type": "http.disconnect"}
            return dict(message)

        async def guarded_send(message: dict[str, Any]) -> None:
            if not refused:
                await send(message)

        await self.application(scope, capped_receive, guarded_send)


_INTAKE_PATH = re.compile(r"^/api/matters/\d+/intake/$")


def _body_limit(scope: dict[str, Any]) -> int:
    """A bulk upload's zip has its own, larger limit (INTAKE_MAX_ZIP_BYTES)."""
    if _INTAKE_PATH.match(scope.get("path", "")):
        return int(settings.INTAKE_MAX_ZIP_BYTES)
    return int(settings.UPLOAD_MAX_BYTES)


def _declared_length(scope: dict[str, Any]) -> int:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


async def _too_large(send: Any, limit_bytes: int) -> None:
    megabytes = limit_bytes / (1024 * 1024)
    message = f"The upload is larger than the limit of {megabytes:.1f} MB."
    body = json.dumps({"error": {"code": "TOO_LARGE", "message": message}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})


application = ProtocolTypeRouter(
    {
        "http": DeclaredBodyLimit(django_asgi_app),
        "websocket": websocket_application(websocket_urlpatterns),
    }
)
