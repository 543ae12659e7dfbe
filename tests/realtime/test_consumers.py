"""The events websocket against the real Redis channel layer."""

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from reviewapp.accounts.models import Membership, Role
from reviewapp.realtime.consumers import EventsConsumer
from reviewapp.realtime.events import event_publish

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def connect(user):
    communicator = WebsocketCommunicator(EventsConsumer.as_asgi(), "/ws/events/")
    communicator.scope["user"] = user
    connected, code = await communicator.connect()
    return communicator, connected, code


async def test_anonymous_socket_is_closed():
    communicator, connected, code = await connect(AnonymousUser())
    assert not connected
    assert code == 4401


async def test_member_receives_events_of_their_matter_only(make_user, make_matter):
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    ours = await sync_to_async(make_matter)("Ours", members=[(alice, Role.LAWYER)])
    theirs = await sync_to_async(make_matter)("Theirs", "Other org", [(bob, Role.LAWYER)])
    alice_socket, connected, _ = await connect(alice)
    assert connected
    await sync_to_async(event_publish)(matter_id=theirs.pk, type="t", payload={"n": 1})
    await sync_to_async(event_publish)(matter_id=ours.pk, type="t", payload={"n": 2})
    message = await alice_socket.receive_json_from(timeout=5)
    assert message["event"]["payload"] == {"n": 2}
    assert await alice_socket.receive_nothing(timeout=0.3)
    await alice_socket.disconnect()


async def test_event_not_delivered_after_membership_is_removed_and_socket_closes(
    make_user, make_matter
):
    alice = await sync_to_async(make_user)("alice")
    matter = await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    other = await sync_to_async(make_matter)("Other")
    socket, _, _ = await connect(alice)
    # Moved off the matter without a delete: the per-event check alone must stop the event.
    await sync_to_async(Membership.objects.filter(user=alice).update)(matter=other)
    await sync_to_async(event_publish)(matter_id=matter.pk, type="t", payload={"secret": 1})
    output = await socket.receive_output(timeout=5)
    assert output == {"type": "websocket.close", "code": 4403}


async def test_ping_gets_pong(make_user, make_matter):
    alice = await sync_to_async(make_user)("alice")
    socket, _, _ = await connect(alice)
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    await socket.disconnect()


async def test_socket_is_closed_when_the_user_signs_out(make_user, make_matter, client):
    alice = await sync_to_async(make_user)("alice")
    await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    socket, _, _ = await connect(alice)
    await sync_to_async(client.force_login)(alice)
    await sync_to_async(client.post)("/logout/")
    output = await socket.receive_output(timeout=5)
    assert output == {"type": "websocket.close", "code": 4401}


async def test_idle_socket_outlives_the_layers_blocking_read(make_user, make_matter):
    alice = await sync_to_async(make_user)("alice")
    matter = await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    socket, _, _ = await connect(alice)
    assert await socket.receive_nothing(timeout=6)  # longer than one blocking pop (5 s)
    await sync_to_async(event_publish)(matter_id=matter.pk, type="t", payload={"late": True})
    assert (await socket.receive_json_from(timeout=5))["event"]["payload"] == {"late": True}
    await socket.disconnect()


async def test_socket_is_closed_when_membership_is_removed(make_user, make_matter):
    alice = await sync_to_async(make_user)("alice")
    await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    socket, _, _ = await connect(alice)
    await sync_to_async(Membership.objects.filter(user=alice).delete)()
    output = await socket.receive_output(timeout=5)
    assert output == {"type": "websocket.close", "code": 4403}


# --- the whole websocket stack of reviewapp/asgi.py: origin check, session cookie, routing ---

ORIGIN = b"http://127.0.0.1:8000"


def full_stack():
    from channels.auth import AuthMiddlewareStack
    from channels.routing import URLRouter
    from channels.security.websocket import AllowedHostsOriginValidator

    from reviewapp.realtime.routing import websocket_urlpatterns

    return AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))


@pytest.fixture
def hosts(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]


async def connect_with(headers):
    communicator = WebsocketCommunicator(full_stack(), "/ws/events/", headers=headers)
    connected, code = await communicator.connect()
    return communicator, connected, code


async def session_cookie(client, user) -> bytes:
    await sync_to_async(client.force_login)(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def test_socket_without_a_session_is_refused(hosts):
    socket, connected, code = await connect_with([(b"origin", ORIGIN)])
    assert not connected and code == 4401
    await socket.disconnect()


async def test_socket_with_a_session_cookie_is_accepted(hosts, make_user, make_matter, client):
    alice = await sync_to_async(make_user)("alice")
    matter = await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    cookie = await session_cookie(client, alice)
    socket, connected, _ = await connect_with([(b"origin", ORIGIN), (b"cookie", cookie)])
    assert connected
    await sync_to_async(event_publish)(matter_id=matter.pk, type="t", payload={"n": 1})
    assert (await socket.receive_json_from(timeout=5))["event"]["payload"] == {"n": 1}
    await socket.disconnect()


async def test_socket_from_another_origin_is_refused(hosts, make_user, client):
    alice = await sync_to_async(make_user)("alice")
    cookie = await session_cookie(client, alice)
    evil = [(b"origin", b"http://evil.example"), (b"cookie", cookie)]
    for headers in (evil, [(b"cookie", cookie)]):  # another site; no Origin at all
        socket, connected, _ = await connect_with(headers)
        assert not connected
        await socket.disconnect()  # the refusing consumer waits for the client to go


async def test_lawyer_does_not_receive_another_matter_of_the_same_organisation(
    make_user, make_matter
):
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    ours = await sync_to_async(make_matter)("A", "Firm", [(alice, Role.LAWYER)])
    theirs = await sync_to_async(make_matter)("B", "Firm", [(bob, Role.LAWYER)])
    alice_socket, _, _ = await connect(alice)
    bob_socket, _, _ = await connect(bob)
    await sync_to_async(event_publish)(matter_id=theirs.pk, type="t", payload={"to": "b"})
    await sync_to_async(event_publish)(matter_id=ours.pk, type="t", payload={"to": "a"})
    assert (await alice_socket.receive_json_from(timeout=5))["event"]["payload"] == {"to": "a"}
    assert (await bob_socket.receive_json_from(timeout=5))["event"]["payload"] == {"to": "b"}
    assert await alice_socket.receive_nothing(timeout=0.3)
    assert await bob_socket.receive_nothing(timeout=0.3)
    await alice_socket.disconnect()
    await bob_socket.disconnect()


async def test_mention_notice_reaches_only_the_mentioned_lawyer(make_user, make_matter):
    from reviewapp.realtime.events import user_notice_push

    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    matter = await sync_to_async(make_matter)(
        "M", members=[(alice, Role.LAWYER), (bob, Role.LAWYER)]
    )
    alice_socket, _, _ = await connect(alice)
    bob_socket, _, _ = await connect(bob)
    await sync_to_async(user_notice_push)(
        user_id=bob.pk, matter_id=matter.pk, type="queue.mention", payload={"item_id": 7}
    )
    message = await bob_socket.receive_json_from(timeout=5)
    assert message["type"] == "live" and message["live"]["type"] == "queue.mention"
    assert message["live"]["payload"] == {"item_id": 7}
    assert await alice_socket.receive_nothing(timeout=0.3)
    await alice_socket.disconnect()
    await bob_socket.disconnect()


async def test_mention_notice_is_dropped_once_the_colleague_left_the_matter(make_user, make_matter):
    from reviewapp.realtime.events import user_notice_push

    bob = await sync_to_async(make_user)("bob")
    matter = await sync_to_async(make_matter)("M", members=[(bob, Role.LAWYER)])
    other = await sync_to_async(make_matter)("Other")
    bob_socket, _, _ = await connect(bob)
    await sync_to_async(Membership.objects.filter(user=bob).update)(matter=other)
    await sync_to_async(user_notice_push)(
        user_id=bob.pk, matter_id=matter.pk, type="queue.mention", payload={"item_id": 7}
    )
    assert await bob_socket.receive_nothing(timeout=0.5)
    await bob_socket.disconnect()
