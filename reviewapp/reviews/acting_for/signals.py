"""What the choice of the party acted for announces to the apps above reviews (the queue
works out its open items' severity again), sent once the choice is committed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.dispatch import Signal

# Sent with contract_ids (the contracts whose party may have changed) and set_by (the user).
acting_for_changed = Signal()


def acting_for_changed_announce(*, contract_ids: Sequence[int], set_by: Any) -> None:
    """Announce the change when the transaction that made it commits."""
    ids = list(contract_ids)
    transaction.on_commit(
        lambda: acting_for_changed.send(sender=None, contract_ids=ids, set_by=set_by)
    )
