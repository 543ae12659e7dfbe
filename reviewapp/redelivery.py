"""Messages a dead worker held go back to their queue within seconds, not after the visibility
timeout (issue 27: work of a worker killed with ``kill -9`` waited ten minutes).

Kombu's Redis transport keeps each message a worker has taken and not yet acknowledged in the
``unacked`` hash, and gives it back only once it is older than the visibility timeout (600 s by
default): it cannot tell a message whose worker died from one still being worked on. Here each
worker's consumer records who holds every message it receives: its node, the host and pid of
its process (with the pid's start time, so a reused pid is not taken for the old process), and
a *generation* that is new each time the consumer starts or reconnects. A reconnected consumer
holds nothing of its earlier generation: on a lost connection Celery cancels the running
acks-late tasks and forgets the reserved ones. A heartbeat key per node, refreshed every
``HEARTBEAT_S``, names the node's live generation.

A held message is an orphan when its holder's node has another generation (or no heartbeat
left), or when the holder ran on this host and its process is gone. Orphans are put back at the
front of their queue with kombu's own ``restore_by_tag`` (a WATCH transaction: two restorers
never both restore one message). This runs when a consumer starts (so the worker the launcher
starts after a killed one, and a consumer that reconnects after Redis came back, restore at
once), every ``RESTORE_EVERY_S`` in every worker, and in the stalled-work sweep. A message
with no holder record (taken in the instant before it was recorded, or recorded while Redis
failed) is restored only once it has been held ``UNRECORDED_GRACE_S``.

Tasks are safe to run twice, so a message restored while its holder was in fact finishing
costs a repeated run, never lost work. Written here because neither Celery nor kombu records
who holds an unacknowledged Redis message; other transports (RabbitMQ redelivers a dead
consumer's messages by itself) are left alone.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from dataclasses import dataclass
from functools import cache, partial
from typing import Any

from celery import bootsteps
from celery.signals import task_received
from django.conf import settings

logger = logging.getLogger(__name__)

HEARTBEAT_S = 10.0
HEARTBEAT_TTL_S = 45
RESTORE_EVERY_S = 30.0
UNRECORDED_GRACE_S = 120.0
_NODE_KEY = "clausewise:consumer:"
_HOLDER_KEY = "clausewise:holder:"


@dataclass(frozen=True)
class Holder:
    node: str
    generation: str
    host: str
    pid: int
    started: str  # the pid's start time (``/proc/<pid>/stat``), empty where unknown

    def dumps(self) -> str:
        return " ".join((self.node, self.generation, self.host, str(self.pid), self.started))

    @classmethod
    def loads(cls, raw: bytes | str) -> Holder | None:
        parts = (raw.decode() if isinstance(raw, bytes) else raw).split(" ")
        if len(parts) != 5 or not parts[3].isdigit():
            return None
        return cls(parts[0], parts[1], parts[2], int(parts[3]), parts[4])


_current: Holder | None = None  # this worker's consumer, once started


def redis_broker() -> bool:
    return str(settings.CELERY_BROKER_URL).startswith(("redis://", "rediss://", "unix://"))


def process_started(pid: int) -> str:
    """The process's start time in clock ticks since boot; empty when there is no such process
    (or no /proc to ask)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def _holder_gone(holder: Holder, live_generations: dict[str, str | None]) -> bool:
    if live_generations.get(holder.node) != holder.generation:
        return True
    if holder.host == socket.gethostname() and holder.started:
        return process_started(holder.pid) != holder.started
    return False


def orphans_restore(app: Any) -> list[str]:
    """Put back every message whose holder is gone; returns their delivery tags."""
    if not redis_broker() or app.conf.task_always_eager:
        return []
    with app.connection_for_write() as connection:
        return _restore(connection)


def _restore(connection: Any) -> list[str]:
    channel = connection.default_channel
    client = channel.client
    tags = [tag.decode() for tag in client.hkeys(channel.unacked_key)]
    if not tags:
        return []
    with client.pipeline() as pipe:
        for tag in tags:
            pipe.zscore(channel.unacked_index_key, tag)
        held_since = pipe.execute()
    holders = [
        Holder.loads(raw) if raw else None
        for raw in client.mget([_HOLDER_KEY + tag for tag in tags])
    ]
    nodes = sorted({holder.node for holder in holders if holder})
    generations = client.mget([_NODE_KEY + node for node in nodes]) if nodes else []
    live = {node: (g.decode() if g else None) for node, g in zip(nodes, generations, strict=True)}
    now = client.time()[0]
    orphans = [
        tag
        for tag, holder, since in zip(tags, holders, held_since, strict=True)
        if (holder is None and since is not None and now - since > UNRECORDED_GRACE_S)
        or (holder is not None and _holder_gone(holder, live))
    ]
    for tag in orphans:
        channel.qos.restore_by_tag(tag, client=client)
        client.delete(_HOLDER_KEY + tag)
    if orphans:
        logger.warning("restored %d messages whose worker is gone", len(orphans))
    return orphans


@cache
def _broker_client() -> Any:
    # redis-py is imported where the broker is asked, not by every module that loads this one
    import redis

    return redis.Redis.from_url(str(settings.CELERY_BROKER_URL), socket_timeout=5)


def _heartbeat() -> None:
    if _current is not None:
        _broker_client().set(_NODE_KEY + _current.node, _current.generation, ex=HEARTBEAT_TTL_S)


def _safely(work: Any) -> None:
    try:
        work()
    except Exception:  # Redis away: the consumer reconnects and starts a new generation
        logger.warning("redelivery bookkeeping failed", exc_info=True)


@task_received.connect
def _record_holder(sender: Any = None, request: Any = None, **_kwargs: Any) -> None:
    """In the worker's main process, as each message is taken from the queue."""
    holder, tag = _current, getattr(getattr(request, "message", None), "delivery_tag", None)
    if holder is None or tag is None:
        return
    ttl = int(settings.CELERY_VISIBILITY_TIMEOUT) + 60
    _safely(lambda: _broker_client().set(_HOLDER_KEY + str(tag), holder.dumps(), ex=ttl))


class HoldersStep(bootsteps.StartStopStep):
    """A consumer bootstep: started again on every reconnection, so each (re)connected
    consumer is a new generation that restores what its node held before."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        self.timers: list[Any] = []
        super().__init__(parent, **kwargs)

    def start(self, parent: Any) -> None:
        global _current
        if not redis_broker():
            return
        pid = os.getpid()
        _current = Holder(
            parent.hostname, uuid.uuid4().hex, socket.gethostname(), pid, process_started(pid)
        )
        _safely(_heartbeat)
        restore = partial(orphans_restore, parent.app)
        _safely(restore)
        self.timers = [
            parent.timer.call_repeatedly(HEARTBEAT_S, _safely, (_heartbeat,)),
            parent.timer.call_repeatedly(RESTORE_EVERY_S, _safely, (restore,)),
        ]

    def stop(self, parent: Any) -> None:
        for timer in self.timers:
            timer.cancel()
        self.timers = []
