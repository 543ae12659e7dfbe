"""On PostgreSQL no connection changes or removes audit rows while the triggers are on, and no
session setting lifts them (TRUNCATE: superusers and clausewise_audit_maintenance only)."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

from reviewapp.audit.models import AuditChain, AuditEvent
from tests.audit.conftest import APP_ROLE, needs_postgresql

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


def test_raw_sql_update_and_delete_are_refused_even_to_the_owner(org_events):
    _, events = org_events
    assert "UPDATE" in refused("UPDATE audit_auditevent SET seq = seq + 10")
    assert "DELETE" in refused("DELETE FROM audit_auditevent WHERE id = %s", [events[4].pk])
    assert AuditEvent.objects.count() == 5


def test_the_old_session_switch_no_longer_allows_truncate(org_events, app_role):
    # The table owner may TRUNCATE it (privilege), so the trigger is what refuses here.
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # TRUNCATE waits for no FK check
        cursor.execute(f"GRANT TRUNCATE ON audit_auditevent, audit_auditchain TO {APP_ROLE}")
    with app_role() as cursor:
        cursor.execute("SET clausewise.audit_truncate = 'allow'")
        for table in ("audit_auditevent", "audit_auditchain"):
            with pytest.raises(DatabaseError, match="append-only: TRUNCATE"), transaction.atomic():
                cursor.execute(f"TRUNCATE {table} CASCADE")
        cursor.execute("RESET clausewise.audit_truncate")
    assert AuditEvent.objects.count() == 5
    assert AuditChain.objects.count() == 1


def test_a_chain_head_only_moves_forward(org_events):
    organisation, _ = org_events
    head = AuditChain.objects.get(organisation=organisation)
    with pytest.raises(DatabaseError, match="only move forward"), transaction.atomic():
        AuditChain.objects.filter(pk=head.pk).update(last_seq=3)
    with pytest.raises(DatabaseError, match="only move forward"), transaction.atomic():
        AuditChain.objects.filter(pk=head.pk).delete()
    assert AuditChain.objects.get(pk=head.pk).last_seq == 5
