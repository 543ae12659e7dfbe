"""Open sockets close when their user's credentials end; the Origin must match exactly."""

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import transaction

from reviewapp.accounts.models import Role
from reviewapp.realtime import consumers
from reviewapp.realtime.events import event_publish
from reviewapp.realtime.origin import origin_normalise, websocket_application
from reviewapp.realtime.routing import websocket_urlpatterns
from tests.realtime.test_consumers import connect, session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def _closed_within(socket, seconds: float) -> dict:
    started = time.monotonic()
    output = await socket.receive_output(timeout=seconds)
    assert time.monotonic() - started < seconds
    return output


def _change_password(user) -> None:
    user.set_password("a-brand-new-password-3")
    user.save()


def _deactivate(user) -> None:
    user.is_active = False
    user.save()


@pytest.mark.parametrize("change", [_change_password, _deactivate])
async def test_open_socket_closes_within_5_s_when_credentials_end(change, make_user, make_matter):
    alice = await sync_to_async(make_user)("alice")
    await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    socket, connected, _ = await connect(alice)
    assert connected
    await sync_to_async(change)(alice)
    assert await _closed_within(socket, 5) == {"type": "websocket.close", "code": 4401}


async def test_other_users_socket_stays_open(make_user, make_matter):
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER), (bob, Role.LAWYER)])
    bob_socket, _, _ = await connect(bob)
    await sync_to_async(_change_password)(alice)
    assert await bob_socket.receive_nothing(timeout=0.5)
    await bob_socket.disconnect()


# --- changes no signal announces (QuerySet.update(), or Redis away when one is sent) ---


@pytest.fixture
def recheck_always(settings):
    settings.REALTIME_RECHECK_S = 0


def _update_user(user, **fields) -> None:
    get_user_model().objects.filter(pk=user.pk).update(**fields)


async def test_socket_of_a_user_deactivated_unannounced_closes_at_the_next_event(
    recheck_always, make_user, make_matter
):
    alice = await sync_to_async(make_user)("alice")
    matter = await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    socket, connected, _ = await connect(alice)
    assert connected
    await sync_to_async(_update_user)(alice, is_active=False)  # no signal, nothing pushed
    assert await socket.receive_nothing(timeout=0.3)
    await sync_to_async(event_publish)(matter_id=matter.pk, type="t", payload={"secret": 1})
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}


async def test_socket_of_a_session_whose_password_changed_unannounced_closes_at_the_next_event(
    recheck_always, hosts, make_user, make_matter, client
):
    alice = await sync_to_async(make_user)("alice")
    matter = await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    socket = await _open_socket(b"http://127.0.0.1:8000", await session_cookie(client, alice))
    await sync_to_async(event_publish)(matter_id=matter.pk, type="t", payload={"n": 1})
    assert (await socket.receive_json_from(timeout=5))["event"]["payload"] == {"n": 1}
    await sync_to_async(_update_user)(alice, password=make_password("x"))
    await sync_to_async(event_publish)(matter_id=matter.pk, type="t", payload={"secret": 2})
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}


async def test_socket_whose_session_was_deleted_unannounced_closes_at_the_next_event(
    recheck_always, hosts, make_user, make_matter, client
):
    from django.contrib.sessions.models import Session

    alice = await sync_to_async(make_user)("alice")
    matter = await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    socket = await _open_socket(b"http://127.0.0.1:8000", await session_cookie(client, alice))
    await sync_to_async(Session.objects.all().delete)()
    await sync_to_async(event_publish)(matter_id=matter.pk, type="t", payload={"secret": 1})
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}


def _publish_burst(matter_id: int, count: int) -> None:
    with transaction.atomic():
        for n in range(count):
            event_publish(matter_id=matter_id, type="t", payload={"n": n})


async def test_a_burst_of_events_is_checked_once_per_recheck_period(
    settings, monkeypatch, make_user, make_matter
):
    settings.REALTIME_RECHECK_S = 1
    checks = []
    real_check = consumers.socket_signed_in

    async def counted(**kwargs):
        checks.append(kwargs)
        return await real_check(**kwargs)

    monkeypatch.setattr(consumers, "socket_signed_in", counted)
    alice = await sync_to_async(make_user)("alice")
    matter = await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    socket, _, _ = await connect(alice)
    await asyncio.sleep(1.05 - time.monotonic() % 1)  # a new period began: the burst is in it
    await sync_to_async(_publish_burst)(matter.pk, 10)
    payloads = [(await socket.receive_json_from(timeout=5))["event"]["payload"] for _ in range(10)]
    assert payloads == [{"n": n} for n in range(10)]
    assert len(checks) == 1
    await socket.disconnect()


# --- the Origin check of reviewapp/asgi.py's websocket stack ---


@pytest.fixture
def hosts(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    settings.WEBSOCKET_ALLOWED_ORIGINS = ["https://app.example.com"]


async def _open(origin: bytes, cookie: bytes, host: bytes = b"127.0.0.1:8000"):
    headers = [(b"host", host), (b"origin", origin), (b"cookie", cookie)]
    socket = WebsocketCommunicator(
        websocket_application(websocket_urlpatterns), "/ws/events/", headers=headers
    )
    connected, _ = await socket.connect()
    await socket.disconnect()
    return connected


async def _open_socket(origin: bytes, cookie: bytes) -> WebsocketCommunicator:
    headers = [(b"host", b"127.0.0.1:8000"), (b"origin", origin), (b"cookie", cookie)]
    socket = WebsocketCommunicator(
        websocket_application(websocket_urlpatterns), "/ws/events/", headers=headers
    )
    connected, _ = await socket.connect()
    assert connected
    return socket


async def test_origin_must_match_scheme_host_and_port(hosts, make_user, make_matter, client):
    alice = await sync_to_async(make_user)("alice")
    await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    cookie = await session_cookie(client, alice)
    assert await _open(b"http://127.0.0.1:8000", cookie)  # the site's own origin
    assert await _open(b"https://app.example.com", cookie)  # listed
    assert await _open(b"https://APP.example.com:443", cookie)  # the same, spelled out
    assert not await _open(b"http://127.0.0.1:8001", cookie)  # right host, another port
    assert not await _open(b"http://127.0.0.1", cookie)  # right host, port 80
    assert not await _open(b"https://127.0.0.1:8000", cookie)  # another scheme
    assert not await _open(b"http://app.example.com", cookie)  # listed host, another scheme
    assert not await _open(b"null", cookie)
    # A Host that ALLOWED_HOSTS refuses gives no "own origin" (DNS rebinding).
    assert not await _open(b"http://evil.example:8000", cookie, host=b"evil.example:8000")


async def test_revoked_session_cannot_open_a_new_socket(hosts, make_user, make_matter, client):
    alice = await sync_to_async(make_user)("alice")
    await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    cookie = await session_cookie(client, alice)
    await sync_to_async(_change_password)(alice)
    await asyncio.sleep(0)
    assert not await _open(b"http://127.0.0.1:8000", cookie)


async def test_origins_are_normalised_with_their_default_port():
    assert origin_normalise("https://Example.com") == "https://example.com:443"
    assert origin_normalise("http://[::1]:8000") == "http://[::1]:8000"
    for bad in ("example.com", "ftp://example.com", "https://example.com/path", "https://:80"):
        assert origin_normalise(bad) is None
