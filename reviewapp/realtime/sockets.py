"""How many sockets each user has open, across every web process, counted in Redis.

A sorted set per user holds the channel name of each open socket, scored with the time its
entry expires. A socket's consumer renews its entry every ``HEARTBEAT_S`` while it is open and
removes it when it closes, so the sockets of a process that crashed stop counting after
``SOCKET_TTL_S``. Written here because it is a few Redis commands of ours, not a generic job.

With Redis away nothing is counted and no socket is refused (degrade open): the cap keeps one
user's many windows from slowing every event's fan-out; who may see what is guarded by the
session and membership checks, which read the database.
"""

from __future__ import annotations

import asyncio
import logging
import time

from django.conf import settings
from redis.exceptions import RedisError

from reviewapp.redis_pool import async_redis_client

logger = logging.getLogger(__name__)

SOCKET_TTL_S = 60
HEARTBEAT_S = 20
_REDIS_ERRORS = (RedisError, OSError, asyncio.TimeoutError)


def _key(user_id: int) -> str:
    return f"clausewise:sockets:user:{user_id}"


async def user_socket_open(*, user_id: int, socket_id: str) -> int | None:
    """Count a socket in: how many sockets the user has open with this one, or None when Redis
    could not be asked (then the socket is not counted until its next renewal)."""
    if not settings.REDIS_URL:
        return None
    now = time.time()
    key = _key(user_id)
    try:
        async with async_redis_client().pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zadd(key, {socket_id: now + SOCKET_TTL_S})
            pipe.zcard(key)
            pipe.expire(key, SOCKET_TTL_S)
            results = await pipe.execute()
    except _REDIS_ERRORS:
        logger.warning("Redis unreachable: socket of user %s not counted", user_id)
        return None
    return int(results[2])


async def user_socket_renew(*, user_id: int, socket_id: str) -> None:
    """Keep a socket counted for another ``SOCKET_TTL_S`` (counted again after a Redis restart)."""
    key = _key(user_id)
    try:
        async with async_redis_client().pipeline(transaction=True) as pipe:
            pipe.zadd(key, {socket_id: time.time() + SOCKET_TTL_S})
            pipe.expire(key, SOCKET_TTL_S)
            await pipe.execute()
    except _REDIS_ERRORS:
        logger.info("Redis unreachable: socket of user %s not renewed", user_id)


async def user_socket_keep(*, user_id: int, socket_id: str) -> None:
    """Renew a socket's entry until cancelled (run as a task while the socket is open)."""
    if not settings.REDIS_URL:
        return
    while True:
        await asyncio.sleep(HEARTBEAT_S)
        await user_socket_renew(user_id=user_id, socket_id=socket_id)


async def user_socket_close(*, user_id: int, socket_id: str) -> None:
    """Stop counting a socket; with Redis away its entry expires by itself."""
    if not settings.REDIS_URL:
        return
    try:
        await async_redis_client().zrem(_key(user_id), socket_id)
    except _REDIS_ERRORS:
        logger.info("Redis unreachable: socket of user %s expires by itself", user_id)
