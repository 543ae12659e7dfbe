"""The per-message permission check of every socket in a server process, batched.

Each socket checks membership again for every message it is about to send (a membership can end
while the socket is open). A message to a matter's group reaches all of the matter's sockets in
this process at about the same time; checked one query each, in Channels' single database thread,
the 200th socket waited for 199 queries. Here the checks that arrive together share one query,
and checks that arrive while a query runs share the next one: still a fresh database read for
every message, no cache.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import defaultdict

from channels.db import database_sync_to_async

from reviewapp.accounts.models import Membership

Key = tuple[int, int]  # (user id, matter id)


class _Batch:
    def __init__(self) -> None:
        self.pending: defaultdict[Key, list[asyncio.Future[bool]]] = defaultdict(list)
        self.running = False


_batches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Batch] = weakref.WeakKeyDictionary()


async def membership_exists(*, user_id: int, matter_id: int) -> bool:
    """Whether the user is (still) a member of the matter, read from the database now."""
    loop = asyncio.get_running_loop()
    batch = _batches.setdefault(loop, _Batch())
    future: asyncio.Future[bool] = loop.create_future()
    batch.pending[(user_id, matter_id)].append(future)
    if not batch.running:
        batch.running = True
        loop.create_task(_drain(batch))
    return await future


async def _drain(batch: _Batch) -> None:
    try:
        await asyncio.sleep(0)  # the other sockets of the same message join this query
        while batch.pending:
            pending, batch.pending = batch.pending, defaultdict(list)
            try:
                allowed = await database_sync_to_async(_existing)(list(pending))
            except Exception as error:  # each waiting socket sees the failure, as before
                _settle(pending, error=error)
            else:
                _settle(pending, allowed=allowed)
    finally:
        batch.running = False


def _settle(
    pending: dict[Key, list[asyncio.Future[bool]]],
    allowed: set[Key] | None = None,
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


def _existing(keys: list[Key]) -> set[Key]:
    rows = Membership.objects.filter(
        user_id__in={user for user, _ in keys}, matter_id__in={matter for _, matter in keys}
    ).values_list("user_id", "matter_id")
    return set(rows) & set(keys)
