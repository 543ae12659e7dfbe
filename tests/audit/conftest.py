"""Helpers for the audit tests: read a chain, and tamper with it the way a database owner could."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection

from reviewapp.audit.models import AuditEvent

needs_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="PostgreSQL only: the append-only triggers and row locks exist there "
    "(set DATABASE_URL=postgres://.../clausewise_audit to run it)",
)


def chain_of(organisation_id: int | None) -> list[AuditEvent]:
    events = AuditEvent.objects.order_by("seq")
    if organisation_id is None:
        return list(events.filter(organisation__isnull=True))
    return list(events.filter(organisation_id=organisation_id))


@contextmanager
def as_owner() -> Iterator:
    """A raw cursor that bypasses the append-only triggers, as the table owner could."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET session_replication_role = replica")
        try:
            yield cursor
        finally:
            if connection.vendor == "postgresql":
                cursor.execute("SET session_replication_role = DEFAULT")


@pytest.fixture
def org_events(make_matter):
    """An organisation whose chain holds five events, and that chain."""
    from reviewapp.audit.services import audit_record

    matter = make_matter("Audited")
    for n in range(5):
        audit_record(
            organisation_id=matter.organisation_id,
            action="contract.uploaded",
            actor_kind="user",
            actor="rita",
            target_type="contract",
            target_id=100 + n,
            data={"n": n},
        )
    return matter.organisation, chain_of(matter.organisation_id)
