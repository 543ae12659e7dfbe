"""The process's one Redis client (and so one connection pool) for REDIS_URL.

Created on first use and dropped in a forked child, so Celery's prefork workers never share a
socket with their parent. A client reconnects by itself when the server restarts.
"""

from __future__ import annotations

import os
import threading

import redis
from django.conf import settings

_clients: dict[str, redis.Redis] = {}
_lock = threading.Lock()


def redis_client() -> redis.Redis:
    """The shared client for ``settings.REDIS_URL``; raises ValueError when it is unset."""
    url = settings.REDIS_URL
    client = _clients.get(url)
    if client is None:
        with _lock:
            client = _clients.get(url)
            if client is None:
                client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2)
                _clients[url] = client
    return client


def _forget_after_fork() -> None:
    # The parent's sockets are not closed here: the parent still uses them.
    global _lock
    _clients.clear()
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
