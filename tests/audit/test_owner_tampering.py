"""What issue 27 found the tables' owner could do unseen, done as the owner would (on PostgreSQL
with the append-only triggers switched off by ALTER TABLE), and verify_audit catching it: the
newest events cut off with the chain head moved back, and the whole log rewritten as unkeyed v1
hashes before any checkpoint of the old hourly schedule."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction

from reviewapp.audit.models import AuditEvent
from reviewapp.audit.selectors import audit_chain_verify
from reviewapp.audit.services import audit_record
from reviewapp.audit.tasks import write_audit_checkpoint
from tests.audit.conftest import chain_of, rewrite_as_owner, triggers_disabled
from tests.audit.test_chain import verify

pytestmark = pytest.mark.django_db


def record_uploads(organisation_id: int, count: int) -> list[AuditEvent]:
    for n in range(count):
        audit_record(
            organisation_id=organisation_id,
            action="contract.uploaded",
            actor_kind="user",
            actor="rita",
            target_type="contract",
            target_id=100 + n,
        )
    return chain_of(organisation_id)


def cut_tail(events: list[AuditEvent], *, keep: int) -> None:
    """Delete the events after `keep` and move the chain head back to the last one kept."""
    cut = [event.pk for event in events[keep:]]
    if connection.vendor == "postgresql":  # the triggers refuse it while they are on
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            AuditEvent.objects.filter(pk__in=cut).delete()
    with triggers_disabled() as cursor:
        cursor.execute(
            f"DELETE FROM audit_auditevent WHERE id IN ({', '.join(['%s'] * len(cut))})", cut
        )
        cursor.execute(
            "UPDATE audit_auditchain SET last_seq = %s, last_hash = %s WHERE organisation_id = %s",
            [keep, events[keep - 1].hash, events[0].organisation_id],
        )


def test_the_newest_events_cut_after_beats_checkpoint_fail_verification(make_matter):
    organisation_id = make_matter().organisation_id
    events = record_uploads(organisation_id, 5)
    assert write_audit_checkpoint()  # beat, a minute after the events at most
    cut_tail(events, keep=3)
    assert audit_chain_verify(organisation_id=organisation_id).intact  # the chain alone: fine
    _, err, failed = verify()
    assert failed == "1 of 2 audit chains are broken."
    assert "first bad row at seq 4: seq 4-5 removed: checkpoint checkpoint-" in err
    assert f"older than the head seq 5 (id {events[4].pk}, written " in err
    assert "(the tail was cut)" in err


def test_a_log_rewritten_as_unkeyed_v1_after_the_first_migrate_fails_verification(make_matter):
    call_command("migrate", verbosity=0)  # the first checkpoint, of a log with no events yet
    organisation_id = make_matter().organisation_id
    events = record_uploads(organisation_id, 4)
    rewrite_as_owner(events, owner=triggers_disabled)  # every hash recomputed as plain SHA-256
    assert {event.hash_kind for event in chain_of(organisation_id)} == {"v1"}
    assert audit_chain_verify(organisation_id=organisation_id).intact  # the chain alone: fine
    _, err, failed = verify()
    assert failed == "1 of 1 audit chains are broken."
    assert (
        f"first bad row at seq 1, id {events[0].pk}: unkeyed: a plain SHA-256 (v1) row after "
        "checkpoint checkpoint-"
    ) in err
    assert "records that the app writes keyed hashes (key " in err
