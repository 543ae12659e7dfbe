from __future__ import annotations

from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from reviewapp.accounts.selectors import matter_list_for_user
from reviewapp.accounts.two_factor.selectors import session_passes_two_factor
from reviewapp.audit.recorders import audit_websocket_refusal
from reviewapp.realtime.events import matter_group, user_group
from reviewapp.realtime.membership import membership_exists

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403


class EventsConsumer(AsyncJsonWebsocketConsumer):
    """Pushes the events of every matter the signed-in user belongs to."""

    groups: list[str]

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated or not await self._passes_two_factor(user):
            await database_sync_to_async(audit_websocket_refusal)(
                scope=self.scope, code=CLOSE_UNAUTHENTICATED
            )
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.groups = [matter_group(pk) for pk in await self._matter_ids(user)]
        self.groups.append(user_group(user.pk))
        for group in self.groups:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels' own dispatch first closes stale database connections, a hop to the single
        # database thread for every message, which made a 200-socket fan-out queue up. Here the
        # database is only reached through database_sync_to_async, which closes them itself.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code: int) -> None:
        for group in getattr(self, "groups", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def event_message(self, message: dict[str, Any]) -> None:
        event = message["event"]
        if await self._may_see(event["matter_id"]):
            await self.send_json({"type": "event", "event": event})
        else:  # subscribed at connect, no longer a member: a reconnect derives the groups again
            await self.close(code=CLOSE_FORBIDDEN)

    async def session_closed(self, message: dict[str, Any]) -> None:
        """The user signed out or lost a membership: this socket may not stay open."""
        await self.close(code=CLOSE_UNAUTHENTICATED if message.get("signed_out") else 4403)

    async def live_message(self, message: dict[str, Any]) -> None:
        """Ephemeral pushes (draft text as it streams): not stored, the final state is."""
        live = message["live"]
        if await self._may_see(live["matter_id"]):
            await self.send_json({"type": "live", "live": live})

    async def user_notice(self, message: dict[str, Any]) -> None:
        """A notice for this user only (an @mention); sent as a ``live`` message."""
        notice = message["notice"]
        if notice["user_id"] == self.scope["user"].pk and await self._may_see(notice["matter_id"]):
            await self.send_json({"type": "live", "live": notice})

    async def _may_see(self, matter_id: int) -> bool:
        # Membership may have changed since connect: check again for every message.
        return await membership_exists(user_id=self.scope["user"].pk, matter_id=matter_id)

    @database_sync_to_async
    def _passes_two_factor(self, user: Any) -> bool:
        """A session still waiting for its second factor is not signed in yet."""
        return session_passes_two_factor(user=user, session=self.scope.get("session") or {})

    @database_sync_to_async
    def _matter_ids(self, user: Any) -> list[int]:
        return list(matter_list_for_user(user=user).values_list("pk", flat=True))
