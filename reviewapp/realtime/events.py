"""The one module that builds and sends live events.

Events are stored first (the database is the source of truth, the id is the sequence number),
then pushed to the matter's channel group after the transaction commits. A client that missed
a push reads /api/events/?after=<seq>.

The pushes of one transaction go out together once it commits, in one call into the channel
layer: a check batch stores an event per passage, and each call from synchronous code into
the layer's event loop costs a new loop and a new Redis connection (about 3 ms). Only the
events whose rows committed are pushed (a rolled-back savepoint's are read back as gone).
Hand-written because it is tied to Django's commit hooks and Channels' event loop.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any, TypedDict

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from reviewapp.realtime.models import Event

logger = logging.getLogger(__name__)

# Redis down or unreachable: the change is committed and the event stored, so the push is lost
# and a client catches up by sequence number; the user is never answered an error for it.
PUSH_ERRORS = (RedisConnectionError, RedisTimeoutError, OSError)


class EventMessage(TypedDict):
    seq: int
    matter_id: int
    type: str
    payload: dict[str, Any]
    created_at: str


def matter_group(matter_id: int) -> str:
    return f"matter.{matter_id}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def sockets_close_for_user(*, user_id: int, signed_out: bool) -> None:
    """Close every live socket of a user (sign-out, credentials revoked, membership removed)."""
    message = {"type": "session.closed", "signed_out": signed_out}
    transaction.on_commit(lambda: _send_to_group(user_group(user_id), message))


def event_message(event: Event) -> EventMessage:
    return {
        "seq": event.pk,
        "matter_id": event.matter_id,
        "type": event.type,
        "payload": event.payload,
        "created_at": event.created_at.isoformat(),
    }


class NewEvent(TypedDict):
    """One event of ``events_publish``."""

    matter_id: int
    type: str
    payload: dict[str, Any]


def event_publish(*, matter_id: int, type: str, payload: dict[str, Any]) -> Event:
    """Store an event and push it to the matter's group once the transaction commits.

    The push never fails the caller: a lost push is logged, and the client's catch-up read
    (by sequence number) recovers it.
    """
    (event,) = events_publish([{"matter_id": matter_id, "type": type, "payload": payload}])
    return event


def events_publish(events: Sequence[NewEvent]) -> list[Event]:
    """``event_publish`` for several events in one insert (a check batch's passages)."""
    stored = Event.objects.bulk_create([Event(**event) for event in events])
    connection = transaction.get_connection()
    waiting = connection.in_atomic_block and any(
        hook is _flush for _, hook, _ in connection.run_on_commit
    )
    if not waiting:  # the first events of this transaction: what is left was rolled back
        _local.messages = []
    _pending().extend(event_message(event) for event in stored)
    if not waiting:
        transaction.on_commit(_flush, robust=True)  # run at once outside a transaction
    return stored


_local = threading.local()


def _pending() -> list[EventMessage]:
    if not hasattr(_local, "messages"):
        _local.messages = []
    messages: list[EventMessage] = _local.messages
    return messages


def _flush() -> None:
    messages, _local.messages = _pending(), []
    if not messages or not settings.REDIS_URL:
        return  # no channel layer (e.g. `manage.py review` without Redis): stored only
    # A savepoint rolled back after the first event took its events' rows (and, on SQLite, may
    # give their ids to later events): only a message whose row is there as sent is pushed.
    rows = Event.objects.filter(pk__in=[m["seq"] for m in messages]).values_list(
        "pk", "type", "created_at"
    )
    committed = {(pk, kind, created.isoformat()) for pk, kind, created in rows}
    _push_all([m for m in messages if (m["seq"], m["type"], m["created_at"]) in committed])


def _push_all(messages: list[EventMessage]) -> None:
    if not messages:
        return
    try:
        layer = get_channel_layer()
        if layer is None:
            return

        async def send_all() -> None:
            for message in messages:
                await layer.group_send(
                    matter_group(message["matter_id"]),
                    {"type": "event.message", "event": message},
                )

        async_to_sync(send_all)()
    except PUSH_ERRORS:
        logger.warning("Redis unreachable: events up to %s stored, not pushed", messages[-1]["seq"])
    except Exception:  # a lost push is recovered by the client's catch-up read
        logger.warning("could not push events up to %s", messages[-1]["seq"], exc_info=True)


def user_notice_push(*, user_id: int, matter_id: int, type: str, payload: dict[str, Any]) -> None:
    """A notice for one user only (an @mention), pushed to the user's own group after commit.

    Not stored: the stored event that goes with it (e.g. ``queue.comment.added``) is what a
    reconnecting client reads. It reaches the page as a ``live`` message.
    """
    notice = {"user_id": user_id, "matter_id": matter_id, "type": type, "payload": payload}
    message = {"type": "user.notice", "notice": notice}
    transaction.on_commit(lambda: _send_to_group(user_group(user_id), message))


def _send_to_group(group: str, message: dict[str, Any]) -> None:
    if not settings.REDIS_URL:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # after the commit: the change stands; a socket left open is logged
        logger.warning("could not push %s to %s", message["type"], group, exc_info=True)
