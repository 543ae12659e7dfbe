from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY

from reviewapp.accounts.selectors import matter_list_for_user
from reviewapp.accounts.two_factor.selectors import session_passes_two_factor
from reviewapp.audit.recorders import audit_websocket_refusal
from reviewapp.realtime.credentials import socket_signed_in
from reviewapp.realtime.events import matter_group, user_group
from reviewapp.realtime.membership import membership_exists
from reviewapp.realtime.sockets import user_socket_close, user_socket_keep, user_socket_open

logger = logging.getLogger(__name__)

# Close codes the page's live.js acts on (README, "WS /ws/events/").
CLOSE_UNAUTHENTICATED = 4401  # not signed in (any more): the page does not reconnect
CLOSE_FORBIDDEN = 4403  # lost a membership: a reconnect derives the groups again
CLOSE_TOO_MANY_SOCKETS = 4429  # REALTIME_MAX_SOCKETS_PER_USER open already: the page says so


def _recheck_period() -> int | None:
    """The process-wide period the clock is in; None when every event checks again."""
    if settings.REALTIME_RECHECK_S <= 0:
        return None
    return int(time.monotonic() // settings.REALTIME_RECHECK_S)


class EventsConsumer(AsyncJsonWebsocketConsumer):
    """Pushes the events of every matter the signed-in user belongs to."""

    groups: list[str]
    _checked_period: int | None = None  # the REALTIME_RECHECK_S period of the last check
    _revoked = False
    _session: tuple[str | None, str | None] = (None, None)  # its key and password hash
    _keeper: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated or not await self._passes_two_factor(user):
            await database_sync_to_async(audit_websocket_refusal)(
                scope=self.scope, code=CLOSE_UNAUTHENTICATED
            )
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        if not await self._counted_in(user.pk):
            await self.accept()  # accepted first: a refused handshake shows the page no code
            await self.close(code=CLOSE_TOO_MANY_SOCKETS)
            return
        self._checked_period = _recheck_period()  # the session was read to authenticate it
        matter_ids, self._session = await self._connect_reads(user)
        self.groups = [matter_group(pk) for pk in matter_ids]
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
        if self._keeper is not None:
            self._keeper.cancel()
            await user_socket_close(user_id=self.scope["user"].pk, socket_id=self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def event_message(self, message: dict[str, Any]) -> None:
        event = message["event"]
        if not await self._still_signed_in():
            return
        if await self._may_see(event["matter_id"]):
            await self.send_json({"type": "event", "event": event})
        else:  # subscribed at connect, no longer a member: a reconnect derives the groups again
            await self.close(code=CLOSE_FORBIDDEN)

    async def session_closed(self, message: dict[str, Any]) -> None:
        """The user signed out, lost their credentials or a membership: this socket may not
        stay open. A notification lost with Redis is caught by the next event's check."""
        signed_out = message.get("signed_out")
        await self.close(code=CLOSE_UNAUTHENTICATED if signed_out else CLOSE_FORBIDDEN)

    async def live_message(self, message: dict[str, Any]) -> None:
        """Ephemeral pushes (draft text as it streams): not stored, the final state is."""
        live = message["live"]
        if await self._still_signed_in() and await self._may_see(live["matter_id"]):
            await self.send_json({"type": "live", "live": live})

    async def user_notice(self, message: dict[str, Any]) -> None:
        """A notice for this user only (an @mention); sent as a ``live`` message."""
        notice = message["notice"]
        if notice["user_id"] != self.scope["user"].pk or not await self._still_signed_in():
            return
        if await self._may_see(notice["matter_id"]):
            await self.send_json({"type": "live", "live": notice})

    async def _counted_in(self, user_id: int) -> bool:
        """Count this socket among the user's; False (and not counted) past the cap. Redis
        away: counted from its next renewal, never refused."""
        count = await user_socket_open(user_id=user_id, socket_id=self.channel_name)
        if count is not None and count > settings.REALTIME_MAX_SOCKETS_PER_USER:
            await user_socket_close(user_id=user_id, socket_id=self.channel_name)
            logger.info("user %s has %s sockets open: one more refused", user_id, count - 1)
            return False
        self._keeper = asyncio.create_task(
            user_socket_keep(user_id=user_id, socket_id=self.channel_name)
        )
        return True

    async def _still_signed_in(self) -> bool:
        """The user still active, the session stored and made under the current password:
        read again in each new REALTIME_RECHECK_S period (so at most that stale), by every socket
        of the process at the same event, in one batch; once not, the socket closes (4401)."""
        if self._revoked:
            return False
        period = _recheck_period()
        if period is not None and period == self._checked_period:
            return True
        session_key, session_hash = self._session
        user_id = self.scope["user"].pk
        if await socket_signed_in(
            user_id=user_id, session_key=session_key, session_hash=session_hash
        ):
            self._checked_period = period
            return True
        self._revoked = True
        await self.close(code=CLOSE_UNAUTHENTICATED)
        return False

    async def _may_see(self, matter_id: int) -> bool:
        # Membership may have changed since connect: check again for every message.
        return await membership_exists(user_id=self.scope["user"].pk, matter_id=matter_id)

    @database_sync_to_async
    def _connect_reads(self, user: Any) -> tuple[list[int], tuple[str | None, str | None]]:
        """The user's matters, and the session's key and password hash (the session a
        consumer is mounted with; none without Channels' session middleware)."""
        matter_ids = list(matter_list_for_user(user=user).values_list("pk", flat=True))
        session = self.scope.get("session")
        if session is None:
            return matter_ids, (None, None)
        return matter_ids, (session.session_key, session.get(HASH_SESSION_KEY))

    @database_sync_to_async
    def _passes_two_factor(self, user: Any) -> bool:
        """A session still waiting for its second factor is not signed in yet."""
        return session_passes_two_factor(user=user, session=self.scope.get("session") or {})
