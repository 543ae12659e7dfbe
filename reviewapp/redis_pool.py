"""The process's one Redis client (and so one connection pool) for REDIS_URL.

Created on first use and dropped in a forked child, so Celery's prefork workers never share a
socket with their parent. A client reconnects by itself when the server restarts. Async code
(websocket consumers) has its own client per event loop: an asyncio connection belongs to the
loop that opened it.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref

import redis
import redis.asyncio
from django.conf import settings

_clients: dict[str, redis.Redis] = {}
_lock = threading.Lock()
_async_clients: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[str, redis.asyncio.Redis]
] = weakref.WeakKeyDictionary()
_TIMEOUT_S, _CONNECT_TIMEOUT_S = 5, 2


def redis_client() -> redis.Redis:
    """The shared client for ``settings.REDIS_URL``; raises ValueError when it is unset."""
    url = settings.REDIS_URL
    client = _clients.get(url)
    if client is None:
        with _lock:
            client = _clients.get(url)
            if client is None:
                client = redis.Redis.from_url(
                    url, socket_timeout=_TIMEOUT_S, socket_connect_timeout=_CONNECT_TIMEOUT_S
                )
                _clients[url] = client
    return client


def async_redis_client() -> redis.asyncio.Redis:
    """The running event loop's client for ``settings.REDIS_URL``; ValueError when unset."""
    url = settings.REDIS_URL
    clients = _async_clients.setdefault(asyncio.get_running_loop(), {})
    client = clients.get(url)
    if client is None:
        client = clients[url] = redis.asyncio.Redis.from_url(
            url, socket_timeout=_TIMEOUT_S, socket_connect_timeout=_CONNECT_TIMEOUT_S
        )
    return client


def _forget_after_fork() -> None:
    # The parent's sockets are not closed here: the parent still uses them.
    global _lock
    _clients.clear()
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
