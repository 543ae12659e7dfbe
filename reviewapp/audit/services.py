"""Writing audit events: the one home of appending to an organisation's hash chain.

Call these inside the transaction of the change they describe: a rolled-back change leaves
no event, and the chain head stays locked until that transaction ends, so each chain is one
line however many processes write to it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from reviewapp.audit.chain import CURRENT_HASH_KIND, event_hash
from reviewapp.audit.models import SYSTEM_CHAIN, AuditAction, AuditChain, AuditEvent


class AuditDataInvalid(ValueError):
    """Audit data holds references only: JSON scalars, lists and mappings with string keys."""


@dataclass(frozen=True)
class AuditEntry:
    action: AuditAction | str
    actor_kind: str
    actor: str
    target_type: str
    target_id: int | str
    data: Mapping[str, Any] = field(default_factory=dict)


def chain_key(organisation_id: int | None) -> str:
    return SYSTEM_CHAIN if organisation_id is None else f"org:{organisation_id}"


def audit_record(
    *,
    organisation_id: int | None,
    action: AuditAction | str,
    actor_kind: str,
    actor: str,
    target_type: str,
    target_id: int | str,
    data: Mapping[str, Any] | None = None,
) -> AuditEvent:
    """Append one event to the organisation's chain (None: the system chain)."""
    entry = AuditEntry(action, actor_kind, actor, target_type, target_id, data or {})
    return audit_record_many(organisation_id=organisation_id, entries=[entry])[0]


def audit_record_many(
    *, organisation_id: int | None, entries: Sequence[AuditEntry]
) -> list[AuditEvent]:
    """Append several events to one chain under one lock, in one bulk insert."""
    if not entries:
        return []
    with transaction.atomic():
        chain = _locked_chain(organisation_id)
        now = timezone.now()
        events = []
        for entry in entries:
            event = _chained_event(organisation_id, chain, entry, now)
            chain.last_seq, chain.last_hash = event.seq, event.hash
            events.append(event)
        AuditEvent.objects.bulk_create(events, batch_size=1000)
        chain.save(update_fields=["last_seq", "last_hash", "updated_at"])
    return events


def _locked_chain(organisation_id: int | None) -> AuditChain:
    key = chain_key(organisation_id)
    chain = AuditChain.objects.select_for_update().filter(key=key).first()
    if chain is None:
        # Two first writers race here: the loser waits on the unique key, then reads the row.
        AuditChain.objects.get_or_create(key=key, defaults={"organisation_id": organisation_id})
        chain = AuditChain.objects.select_for_update().get(key=key)
    return chain


def _chained_event(
    organisation_id: int | None, chain: AuditChain, entry: AuditEntry, now: Any
) -> AuditEvent:
    data = _checked(dict(entry.data))
    fields = {
        "seq": chain.last_seq + 1,
        "prev_hash": chain.last_hash,
        "created_at": now,
        "action": str(entry.action),
        "actor_kind": str(entry.actor_kind),
        "actor": entry.actor[:200],
        "target_type": entry.target_type[:40],
        "target_id": str(entry.target_id)[:64],
        "data": data,
    }
    digest = event_hash(organisation_id=organisation_id, hash_kind=CURRENT_HASH_KIND, **fields)
    return AuditEvent(
        organisation_id=organisation_id, hash=digest, hash_kind=CURRENT_HASH_KIND, **fields
    )


def _checked(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise AuditDataInvalid("Audit data cannot hold NaN or infinity.")
        return value
    if isinstance(value, list | tuple):
        return [_checked(item) for item in value]
    if isinstance(value, Mapping):
        if not all(isinstance(key, str) for key in value):
            raise AuditDataInvalid("Audit data keys must be strings.")
        return {key: _checked(item) for key, item in value.items()}
    raise AuditDataInvalid(f"Audit data cannot hold a {type(value).__name__}.")
