"""How many messages wait in the queue a task is routed to.

The sweeper (reviewapp.reviews.sweeper, contracts_requeue_stalled) must tell work that waits its
turn behind a long backlog (a 300-document zip) from work whose message was lost (a broker that
restarted empty, a publish that failed). While a queue still holds messages, rows queued for it
are presumed to be in it; once it has drained, a row still queued has lost its message. Asked
through kombu's passive queue declaration, so it is the broker's own count, whatever the
transport.
"""

from __future__ import annotations

import logging
from typing import Any

from amqp.exceptions import ChannelError

from reviewapp.celery import app

logger = logging.getLogger(__name__)


def waiting_messages(task_name: str) -> int | None:
    """Messages waiting in ``task_name``'s queue (not those a worker holds); None when the
    broker cannot be asked."""
    return queue_waiting(app.amqp.router.route({}, task_name)["queue"].name)


def queue_waiting(queue: str) -> int | None:
    try:
        with app.connection_for_read() as connection:
            channel: Any = connection.default_channel  # kombu's stubs omit queue_declare
            declared = channel.queue_declare(queue=queue, passive=True)
            return int(declared.message_count)
    except ChannelError:  # a Redis list that is empty does not exist
        return 0
    except Exception:  # the broker is away: kombu/redis connection errors, OSError
        logger.warning("could not ask the broker how many messages wait in %s", queue)
        return None


def backlog(task_name: str) -> bool:
    """True when messages (or an unanswering broker) may still hold work queued for the task.
    Tasks run in the caller (eager: tests, `manage.py review`) never wait in a queue."""
    if app.conf.task_always_eager:
        return False
    waiting = waiting_messages(task_name)
    return waiting is None or waiting > 0
