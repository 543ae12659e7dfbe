"""A websocket connection refused by the events consumer is an audit event."""

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from reviewapp.audit.models import AuditAction, AuditEvent
from reviewapp.realtime.consumers import EventsConsumer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_refused_socket_is_recorded_in_the_system_chain():
    communicator = WebsocketCommunicator(EventsConsumer.as_asgi(), "/ws/events/")
    communicator.scope["user"] = AnonymousUser()
    communicator.scope["client"] = ("10.0.0.7", 5000)
    connected, code = await communicator.connect()
    assert not connected and code == 4401
    events = await sync_to_async(list)(AuditEvent.objects.filter(organisation__isnull=True))
    [event] = events
    assert event.action == AuditAction.WEBSOCKET_REFUSED
    assert event.data == {
        "ip": "10.0.0.7",
        "method": "WEBSOCKET",
        "path": "/ws/events/",
        "status": 4401,
    }
