"""A per-organisation cap on concurrent model calls, shared by every worker through Redis."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

from reviewapp.redis_pool import redis_client
from reviewapp.retries import RetrySoon

SLOT_TTL_S = 600  # a worker that dies holding a slot gives it back after this long


class SlotsBusy(RetrySoon):
    """Every model-call slot of the organisation is taken; try again shortly."""


@contextmanager
def model_call_slot(organisation_id: int) -> Iterator[None]:
    if not settings.REDIS_URL:  # a lone command-line process: nothing to share a cap with
        yield
        return
    client = redis_client()
    key = f"llm-slots:{organisation_id}"
    token = uuid.uuid4().hex
    now = time.time()
    pipe = client.pipeline()
    pipe.zremrangebyscore(key, 0, now)
    pipe.zadd(key, {token: now + SLOT_TTL_S})
    pipe.zrank(key, token)
    pipe.expire(key, SLOT_TTL_S)
    _, _, rank, _ = pipe.execute()
    if rank is None or rank >= settings.LLM_MAX_CONCURRENT_PER_ORG:
        client.zrem(key, token)
        raise SlotsBusy(organisation_id)
    try:
        yield
    finally:
        client.zrem(key, token)
