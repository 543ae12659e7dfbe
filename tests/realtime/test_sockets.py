"""A user's open sockets are capped across processes; the next is closed with code 4429."""

import time

import pytest
import redis
from asgiref.sync import sync_to_async
from django.conf import settings as django_settings

from reviewapp.accounts.models import Role
from reviewapp.realtime.events import event_publish
from reviewapp.realtime.sockets import SOCKET_TTL_S
from tests.realtime.test_consumers import connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

CLOSED_TOO_MANY = {"type": "websocket.close", "code": 4429}


@pytest.fixture
def cap_of_two(settings):
    settings.REALTIME_MAX_SOCKETS_PER_USER = 2


@pytest.fixture
def no_sockets_counted():
    client = redis.Redis.from_url(django_settings.REDIS_URL)
    for key in client.scan_iter("clausewise:sockets:user:*"):
        client.delete(key)
    yield client
    client.close()


async def _close_all(sockets) -> None:
    for socket in sockets:
        await socket.disconnect()


async def test_the_socket_past_the_cap_is_closed_with_4429_and_the_others_still_receive(
    cap_of_two, no_sockets_counted, make_user, make_matter
):
    alice = await sync_to_async(make_user)("alice")
    matter = await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    first, second = [(await connect(alice))[0] for _ in range(2)]
    third, accepted, _ = await connect(alice)
    assert accepted  # accepted, so that the page's onclose sees the code
    assert await third.receive_output(timeout=5) == CLOSED_TOO_MANY
    await sync_to_async(event_publish)(matter_id=matter.pk, type="t", payload={"n": 1})
    for socket in (first, second):
        assert (await socket.receive_json_from(timeout=5))["event"]["payload"] == {"n": 1}
    await _close_all([first, second])


async def test_a_closed_socket_frees_its_place_and_other_users_are_not_counted(
    cap_of_two, no_sockets_counted, make_user, make_matter
):
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    first, second = [(await connect(alice))[0] for _ in range(2)]
    bobs = [(await connect(bob))[0] for _ in range(2)]
    for socket in bobs:
        assert await socket.receive_nothing(timeout=0.1)
    await first.disconnect()
    again, _, _ = await connect(alice)
    assert await again.receive_nothing(timeout=0.3)  # open, not closed
    await _close_all([second, again, *bobs])


async def test_sockets_of_a_crashed_process_stop_counting(
    cap_of_two, no_sockets_counted, make_user
):
    alice = await sync_to_async(make_user)("alice")
    key = f"clausewise:sockets:user:{alice.pk}"
    expired = time.time() - 1  # their process stopped renewing them SOCKET_TTL_S ago
    no_sockets_counted.zadd(key, {"crashed-a": expired, "crashed-b": expired})
    no_sockets_counted.zadd(key, {"live-elsewhere": time.time() + SOCKET_TTL_S})
    mine, _, _ = await connect(alice)
    assert await mine.receive_nothing(timeout=0.3)
    past_cap, _, _ = await connect(alice)
    assert await past_cap.receive_output(timeout=5) == CLOSED_TOO_MANY
    await mine.disconnect()


async def test_no_socket_is_refused_while_redis_cannot_count(
    settings, no_sockets_counted, make_user
):
    settings.REALTIME_MAX_SOCKETS_PER_USER = 1
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens: counting fails fast
    alice = await sync_to_async(make_user)("alice")
    sockets = [(await connect(alice))[0] for _ in range(3)]
    for socket in sockets:
        assert await socket.receive_nothing(timeout=0.1)
    await _close_all(sockets)
