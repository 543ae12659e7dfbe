"""On PostgreSQL the application's own connection cannot change or remove audit rows."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

from reviewapp.audit.models import AuditChain, AuditEvent
from tests.audit.conftest import needs_postgresql

pytestmark = [pytest.mark.django_db, needs_postgresql]


def refused(sql: str, params: list | None = None) -> str:
    with pytest.raises(DatabaseError) as error, transaction.atomic(), connection.cursor() as cur:
        cur.execute(sql, params)
    return str(error.value)


def test_orm_update_of_an_event_is_refused(org_events):
    _, events = org_events
    with pytest.raises(DatabaseError, match="append-only: UPDATE"), transaction.atomic():
        AuditEvent.objects.filter(pk=events[0].pk).update(actor="mallory")
    assert AuditEvent.objects.get(pk=events[0].pk).actor == "rita"


def test_orm_delete_of_an_event_is_refused(org_events):
    _, events = org_events
    with pytest.raises(DatabaseError, match="append-only: DELETE"), transaction.atomic():
        AuditEvent.objects.filter(pk=events[0].pk).delete()
    assert AuditEvent.objects.count() == 5


def test_raw_sql_update_delete_and_truncate_are_refused(org_events):
    _, events = org_events
    assert "UPDATE" in refused("UPDATE audit_auditevent SET seq = seq + 10")
    assert "DELETE" in refused("DELETE FROM audit_auditevent WHERE id = %s", [events[4].pk])
    # Tests allow TRUNCATE for Django's table flush; an application session does not.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL clausewise.audit_truncate = ''")
        with pytest.raises(DatabaseError, match="TRUNCATE"), transaction.atomic():
            cursor.execute("TRUNCATE audit_auditevent CASCADE")
    assert AuditEvent.objects.count() == 5


def test_a_chain_head_only_moves_forward(org_events):
    organisation, _ = org_events
    head = AuditChain.objects.get(organisation=organisation)
    with pytest.raises(DatabaseError, match="only move forward"), transaction.atomic():
        AuditChain.objects.filter(pk=head.pk).update(last_seq=3)
    with pytest.raises(DatabaseError, match="only move forward"), transaction.atomic():
        AuditChain.objects.filter(pk=head.pk).delete()
    assert AuditChain.objects.get(pk=head.pk).last_seq == 5
