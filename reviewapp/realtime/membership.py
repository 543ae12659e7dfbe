"""The per-message membership check of every socket in a server process, batched.

Each socket checks membership again for every message it is about to send (a membership can end
while the socket is open); the checks that arrive together share one query (``batched.py``).
"""

from __future__ import annotations

from reviewapp.accounts.models import Membership
from reviewapp.realtime.batched import BatchedCheck

Key = tuple[int, int]  # (user id, matter id)


def _existing(keys: list[Key]) -> set[Key]:
    rows = Membership.objects.filter(
        user_id__in={user for user, _ in keys}, matter_id__in={matter for _, matter in keys}
    ).values_list("user_id", "matter_id")
    return set(rows) & set(keys)


_membership_check = BatchedCheck(_existing)


async def membership_exists(*, user_id: int, matter_id: int) -> bool:
    """Whether the user is (still) a member of the matter, read from the database now."""
    return await _membership_check((user_id, matter_id))
