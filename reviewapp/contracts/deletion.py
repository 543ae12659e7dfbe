"""Deleting a contract: by the organisation's admins, its uploader (failed uploads) or retention.

What goes: the original file, the text, the passages and everything that hangs off them (the
review, its firings, transitions, draft, verifications, model calls and queue items, through
their foreign keys), and the file name in the stored live events. What stays: one audit event
with the fact and hashes (ids, the file's SHA-256 and size, the passage count, who and why).
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from reviewapp.accounts.models import Matter, Membership, Role
from reviewapp.accounts.selectors import AnyUser
from reviewapp.audit.models import AuditAction, AuditActorKind
from reviewapp.audit.services import audit_record
from reviewapp.contracts.models import FAILED_STATUSES, WORKING_STATUSES, Contract
from reviewapp.contracts.unlocked import unlocked_copy_delete
from reviewapp.realtime.events import event_publish
from reviewapp.realtime.models import Event
from reviewapp.retries import retrying_deadlocks

logger = logging.getLogger(__name__)

DELETED_NAME = "deleted contract"
RETENTION = "retention"
# Why a person deleted a contract: codes, so the audit log holds no free text.
DELETION_REASONS = {
    "requested": gettext_lazy("No longer needed"),
    "wrong_file": gettext_lazy("Wrong file uploaded"),
    "duplicate": gettext_lazy("Duplicate of another upload"),
    "client_instruction": gettext_lazy("The client asked for it to be deleted"),
}
# Keys of live-event payloads that hold ids, states or codes; every other string is dropped.
_EVENT_CODE_KEYS = frozenset(
    {"status", "state", "review_status", "engine", "outcome", "severity", "decision", "url"}
)


class ContractDeletionRefused(Exception):
    """The contract cannot be deleted now (legal hold, unknown reason); the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def contract_get_for_deletion(*, user: AnyUser, contract_id: int) -> Contract | None:
    """The contract if the user may see it: on its matter, or an admin of its organisation."""
    if not user.is_authenticated:
        return None
    member_of = Membership.objects.filter(user=user).values("matter")
    admin_of = Membership.objects.filter(user=user, role=Role.ADMIN).values("matter__organisation")
    return (
        Contract.objects.filter(Q(matter__in=member_of) | Q(matter__organisation__in=admin_of))
        .select_related("matter")
        .defer("text")
        .filter(pk=contract_id)
        .first()
    )


def contract_may_delete(*, user: AnyUser, contract: Contract) -> bool:
    """Admins of the matter's organisation; the uploader while the upload failed or is unread."""
    if not user.is_authenticated:
        return False
    organisation_id = contract.matter.organisation_id
    memberships = Membership.objects.filter(user=user)
    if memberships.filter(role=Role.ADMIN, matter__organisation_id=organisation_id).exists():
        return True
    unfinished = contract.status in FAILED_STATUSES | WORKING_STATUSES
    return (
        unfinished
        and contract.uploaded_by_id == user.pk
        and memberships.filter(matter_id=contract.matter_id).exists()
    )


def contract_ids_deletable(*, user: AnyUser, matter: Matter) -> set[int]:
    """The matter's contracts the user may delete (for the buttons on the matter page)."""
    contracts = Contract.objects.filter(matter=matter)
    if not user.is_authenticated:
        return set()
    is_admin = Membership.objects.filter(
        user=user, role=Role.ADMIN, matter__organisation_id=matter.organisation_id
    ).exists()
    if not is_admin:
        unfinished = [*FAILED_STATUSES, *WORKING_STATUSES]
        contracts = contracts.filter(uploaded_by=user, status__in=unfinished)
    return set(contracts.values_list("pk", flat=True))


@retrying_deadlocks
def contract_delete(*, contract: Contract, deleted_by: Any, reason: str) -> None:
    """Delete the contract and all that was read from it; ``deleted_by`` None is the system.

    Refused (``ContractDeletionRefused``) while the matter is on legal hold; the matter row is
    locked, so a hold placed at the same moment either waits for this or stops it. The file
    leaves storage only once the deletion has committed.
    """
    if deleted_by is not None and not contract_may_delete(user=deleted_by, contract=contract):
        raise PermissionDenied("Only an admin of the organisation can delete this contract.")
    _check_reason(deleted_by, reason)
    with transaction.atomic():
        matter = Matter.objects.select_for_update().get(pk=contract.matter_id)
        if matter.legal_hold:
            raise ContractDeletionRefused(
                "LEGAL_HOLD",
                _("This matter is on legal hold: nothing in it can be deleted until it is lifted."),
            )
        locked = Contract.objects.select_for_update().filter(pk=contract.pk).first()
        if locked is None:
            return  # someone else deleted it first
        _audit_deletion(locked, matter, deleted_by, reason)
        _scrub_events(locked)
        storage, file_name = locked.file.storage, locked.file.name
        locked.delete()
        event_publish(
            matter_id=matter.pk,
            type="document.deleted",
            payload={"contract_id": contract.pk, "name": DELETED_NAME},
        )
        if file_name:
            transaction.on_commit(lambda: _delete_file(storage, file_name))


def _check_reason(deleted_by: Any, reason: str) -> None:
    allowed = {RETENTION} if deleted_by is None else set(DELETION_REASONS)
    if reason not in allowed:
        raise ContractDeletionRefused("INVALID", _("Choose why the contract is deleted."))


def _audit_deletion(contract: Contract, matter: Matter, deleted_by: Any, reason: str) -> None:
    if deleted_by is None:
        actor_kind, actor = AuditActorKind.SYSTEM, "system"
    else:
        actor_kind, actor = AuditActorKind.USER, deleted_by.get_username()
    audit_record(
        organisation_id=matter.organisation_id,
        action=AuditAction.CONTRACT_DELETED,
        actor_kind=actor_kind,
        actor=actor,
        target_type="contract",
        target_id=contract.pk,
        data={
            "matter_id": matter.pk,
            "sha256": contract.sha256,
            "size": contract.size,
            "kind": contract.kind,
            "status": contract.status,
            "passage_count": contract.passages.count(),
            "name_sha256": hashlib.sha256(contract.original_name.encode()).hexdigest(),
            "uploaded_by_id": contract.uploaded_by_id,
            "deleted_by_id": getattr(deleted_by, "pk", None),
            "reason": reason,
        },
    )


def _scrub_events(contract: Contract) -> None:
    """Keep the stored events' ids and states (clients resume from them), drop name and text."""
    events = Event.objects.filter(matter_id=contract.matter_id, payload__contract_id=contract.pk)
    for event in events.iterator():
        event.payload = _scrubbed(event.payload)
        event.save(update_fields=["payload"])


def _scrubbed(payload: dict[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, value in payload.items():
        if key == "name":
            kept[key] = DELETED_NAME
        elif _is_reference(key, value):
            kept[key] = value
    kept["deleted"] = True
    return kept


def _is_reference(key: str, value: Any) -> bool:
    if value is None or isinstance(value, bool | int | float):
        return True
    return isinstance(value, str) and key in _EVENT_CODE_KEYS


def _delete_file(storage: Any, name: str) -> None:
    try:
        storage.delete(name)
        unlocked_copy_delete(storage=storage, file_name=name)  # a locked PDF's display copy
    except OSError:  # the rows are gone already; a file left behind is logged, not fatal
        logger.exception("could not delete the original file of a deleted contract")


def contracts_delete_expired(*, now: datetime | None = None) -> list[int]:
    """Delete, as the system, the contracts older than their matter's retention period.

    Matters on legal hold are skipped; a hold placed mid-run stops the rest of that matter.
    Safe to run twice: what was deleted is gone, what is left is not yet due.
    """
    now = now or timezone.now()
    deleted: list[int] = []
    matters = Matter.objects.filter(retention_days__isnull=False, legal_hold=False)
    for matter in matters.iterator():
        cutoff = now - timedelta(days=matter.retention_days or 0)
        due = Contract.objects.filter(matter=matter, created_at__lt=cutoff).select_related("matter")
        for contract in due.defer("text").iterator():
            try:
                contract_delete(contract=contract, deleted_by=None, reason=RETENTION)
            except ContractDeletionRefused:
                break  # put on hold since the query: leave the matter alone
            deleted.append(contract.pk)
    return deleted
