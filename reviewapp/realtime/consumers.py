from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from reviewapp.accounts.selectors import matter_list_for_user, user_can_access_matter
from reviewapp.realtime.events import matter_group, user_group

CLOSE_UNAUTHENTICATED = 4401


class EventsConsumer(AsyncJsonWebsocketConsumer):
    """Pushes the events of every matter the signed-in user belongs to."""

    groups: list[str]

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.groups = [matter_group(pk) for pk in await self._matter_ids(user)]
        self.groups.append(user_group(user.pk))
        for group in self.groups:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()

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

    async def session_closed(self, message: dict[str, Any]) -> None:
        """The user signed out or lost a membership: this socket may not stay open."""
        await self.close(code=CLOSE_UNAUTHENTICATED if message.get("signed_out") else 4403)

    async def live_message(self, message: dict[str, Any]) -> None:
        """Ephemeral pushes (draft text as it streams): not stored, the final state is."""
        live = message["live"]
        if await self._may_see(live["matter_id"]):
            await self.send_json({"type": "live", "live": live})

    async def _may_see(self, matter_id: int) -> bool:
        # Membership may have changed since connect: check again for every message.
        return await database_sync_to_async(user_can_access_matter)(
            user=self.scope["user"], matter_id=matter_id
        )

    @database_sync_to_async
    def _matter_ids(self, user: Any) -> list[int]:
        return list(matter_list_for_user(user=user).values_list("pk", flat=True))
