"""Per-message checks of every socket in a server process, batched.

A message to a group reaches all of the group's sockets in this process at about the same time,
and each socket checks, before it sends, that its user may still have it. Checked one query
each, in Channels' single database thread, the 200th socket waited for 199 queries. A
``BatchedCheck`` lets the checks that arrive together share one query, and the checks that arrive
while a query runs share the next one: still a fresh database read for every check, no cache.
Written here because the batching is tied to Channels' database thread and the event loop.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import defaultdict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from channels.db import database_sync_to_async

K = TypeVar("K", bound=Hashable)


class _Batch(Generic[K]):
    def __init__(self) -> None:
        self.pending: defaultdict[K, list[asyncio.Future[bool]]] = defaultdict(list)
        self.running = False


class BatchedCheck(Generic[K]):
    """``await check(key)``: whether ``key`` is among those ``query(keys)`` returns, read now."""

    def __init__(self, query: Callable[[list[K]], set[K]]) -> None:
        self._query = query
        self._batches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Batch[K]] = (
            weakref.WeakKeyDictionary()
        )

    async def __call__(self, key: K) -> bool:
        loop = asyncio.get_running_loop()
        batch = self._batches.setdefault(loop, _Batch())
        future: asyncio.Future[bool] = loop.create_future()
        batch.pending[key].append(future)
        if not batch.running:
            batch.running = True
            loop.create_task(self._drain(batch))
        return await future

    async def _drain(self, batch: _Batch[K]) -> None:
        try:
            await asyncio.sleep(0)  # the other sockets of the same message join this query
            while batch.pending:
                pending, batch.pending = batch.pending, defaultdict(list)
                try:
                    allowed = await database_sync_to_async(self._query)(list(pending))
                except Exception as error:  # each waiting socket sees the failure
                    _settle(pending, error=error)
                else:
                    _settle(pending, allowed=allowed)
        finally:
            batch.running = False


def _settle(
    pending: dict[K, list[asyncio.Future[bool]]],
    allowed: set[K] | None = None,
    error: Exception | None = None,
) -> None:
    for key, futures in pending.items():
        for future in futures:
            if future.done():
                continue
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(key in (allowed or set()))
