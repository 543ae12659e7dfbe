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


async def test_event_not_delivered_after_membership_is_removed(make_user, make_matter):
    alice = await sync_to_async(make_user)("alice")
    matter = await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    other = await sync_to_async(make_matter)("Other")
    socket, _, _ = await connect(alice)
    # Moved off the matter without a delete: the per-event check alone must stop the event.
    await sync_to_async(Membership.objects.filter(user=alice).update)(matter=other)
    await sync_to_async(event_publish)(matter_id=matter.pk, type="t", payload={})
    assert await socket.receive_nothing(timeout=0.5)
    await socket.disconnect()


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


async def test_socket_is_closed_when_membership_is_removed(make_user, make_matter):
    alice = await sync_to_async(make_user)("alice")
    await sync_to_async(make_matter)("M", members=[(alice, Role.LAWYER)])
    socket, _, _ = await connect(alice)
    await sync_to_async(Membership.objects.filter(user=alice).delete)()
    output = await socket.receive_output(timeout=5)
    assert output == {"type": "websocket.close", "code": 4403}
