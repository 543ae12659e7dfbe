"""Messages held by a worker that is gone go back to their queue at once (reviewapp.redelivery),
on the test Redis broker itself; the worker-crash and Redis-restart runs are in tests/stack."""

from __future__ import annotations

import socket
import uuid

import pytest
from kombu import Connection

from reviewapp import redelivery
from reviewapp.celery import app
from reviewapp.redelivery import Holder, process_started

pytestmark = pytest.mark.skipif(not redelivery.redis_broker(), reason="a Redis broker")


@pytest.fixture
def broker():
    with app.connection_for_write() as connection:
        yield connection


@pytest.fixture
def queue(broker):
    name = f"redelivery-{uuid.uuid4().hex[:8]}"
    with broker.SimpleQueue(name) as simple:
        simple.put({"work": 1})
        yield name, simple
    broker.default_channel.queue_delete(name)


def take(broker: Connection, name: str) -> str:
    """Take the message as a worker would, without acknowledging it: it is now held."""
    message = broker.default_channel.basic_get(name, no_ack=False)
    assert message is not None
    return str(message.delivery_tag)


def waiting(broker: Connection, name: str) -> int:
    return broker.default_channel.client.llen(name)


def hold(broker: Connection, tag: str, holder: Holder, *, live: str | None) -> None:
    client = broker.default_channel.client
    client.set(redelivery._HOLDER_KEY + tag, holder.dumps(), ex=60)
    if live is None:
        client.delete(redelivery._NODE_KEY + holder.node)
    else:
        client.set(redelivery._NODE_KEY + holder.node, live, ex=60)


def test_a_message_of_an_earlier_generation_goes_back_to_its_queue(broker, queue):
    name, _ = queue
    tag = take(broker, name)
    assert waiting(broker, name) == 0
    hold(broker, tag, Holder("w@h", "old", "elsewhere", 1, "1"), live="new")  # it reconnected
    assert tag in redelivery._restore(broker)
    assert waiting(broker, name) == 1
    assert not broker.default_channel.client.hexists(broker.default_channel.unacked_key, tag)


def test_a_message_of_a_node_without_heartbeat_goes_back(broker, queue):
    name, _ = queue
    tag = take(broker, name)
    hold(broker, tag, Holder("gone@h", "g1", "elsewhere", 1, "1"), live=None)
    assert tag in redelivery._restore(broker)
    assert waiting(broker, name) == 1


def test_a_message_held_by_a_dead_process_of_this_host_goes_back(broker, queue):
    name, _ = queue
    tag = take(broker, name)
    dead = Holder("w2@h", "g1", socket.gethostname(), 2**22 + 7, "12345")  # no such pid
    hold(broker, tag, dead, live="g1")
    assert tag in redelivery._restore(broker)


def test_a_message_a_live_worker_holds_stays_held(broker, queue):
    name, _ = queue
    tag = take(broker, name)
    here = Holder("w3@h", "g1", socket.gethostname(), 1, process_started(1))  # pid 1 lives
    hold(broker, tag, here, live="g1")
    elsewhere = Holder("w4@h", "g1", "another-host", 1, "1")
    assert tag not in redelivery._restore(broker)
    hold(broker, tag, elsewhere, live="g1")
    assert tag not in redelivery._restore(broker)
    assert waiting(broker, name) == 0


def test_a_message_held_without_a_record_goes_back_only_after_the_grace(broker, queue):
    name, _ = queue
    tag = take(broker, name)
    client = broker.default_channel.client
    assert tag not in redelivery._restore(broker)
    held_at = client.time()[0] - redelivery.UNRECORDED_GRACE_S - 1
    client.zadd(broker.default_channel.unacked_index_key, {tag: held_at})
    assert tag in redelivery._restore(broker)
    assert waiting(broker, name) == 1


def test_a_holder_record_reads_back():
    holder = Holder("celery@host", "abc", "host", 42, "999")
    assert Holder.loads(holder.dumps().encode()) == holder
    assert Holder.loads(b"garbage") is None
    assert process_started(2**22 + 7) == ""
