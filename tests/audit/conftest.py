"""Helpers for the audit tests: read a chain, tamper with it the way a database owner could, and
act as the app's non-owner role."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from io import StringIO

import pytest
from django.db import connection

from reviewapp.audit.chain import event_hash
from reviewapp.audit.models import AuditEvent

APP_ROLE = "clausewise_test_app"

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


@contextmanager
def triggers_disabled() -> Iterator:
    """A raw cursor after the owner switched the append-only triggers off (ALTER TABLE ...
    DISABLE TRIGGER, which only the owner may run); they are switched back on after."""
    tables = ("audit_auditevent", "audit_auditchain")
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # ALTER TABLE waits for no FK check
            for table in tables:
                cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        try:
            yield cursor
        finally:
            if connection.vendor == "postgresql":
                for table in tables:
                    cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")


@pytest.fixture(autouse=True)
def checkpoint_dir(settings, tmp_path):
    """Each test writes and reads its own checkpoints, never var/audit-checkpoints."""
    settings.AUDIT_CHECKPOINT_DIR = tmp_path / "audit-checkpoints"
    return settings.AUDIT_CHECKPOINT_DIR


def rewrite_as_owner(
    events: list[AuditEvent], *, from_seq: int = 1, hash_kind: str = "v1", owner=as_owner
):
    """What the tables' owner can do without the key: edit rows from `from_seq` on, recompute
    every hash after them with plain SHA-256 (or any kind), and move the chain head along."""
    prev_hash = events[from_seq - 2].hash if from_seq > 1 else events[0].prev_hash
    with owner() as cursor:
        for event in events[from_seq - 1 :]:
            digest = event_hash(
                organisation_id=event.organisation_id,
                seq=event.seq,
                prev_hash=prev_hash,
                created_at=event.created_at,
                action=event.action,
                actor_kind=event.actor_kind,
                actor="mallory",
                target_type=event.target_type,
                target_id=event.target_id,
                data=event.data,
                hash_kind=hash_kind,
                key=b"a key the owner made up",
            )
            cursor.execute(
                "UPDATE audit_auditevent SET actor = 'mallory', prev_hash = %s, hash = %s, "
                "hash_kind = %s WHERE id = %s",
                [prev_hash, digest, hash_kind, event.pk],
            )
            prev_hash = digest
        cursor.execute(
            "UPDATE audit_auditchain SET last_hash = %s WHERE organisation_id = %s",
            [prev_hash, events[0].organisation_id],
        )


@pytest.fixture
def app_role(db):
    """A role the app could run as (no ownership, `db_grant_app_role` grants), created inside
    the test's transaction so it goes when the test ends. Yields `as_app_role`."""
    from django.core.management import call_command

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only: SQLite has no roles")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user"
        )
        if not cursor.fetchone()[0]:
            pytest.skip("the test database user cannot create roles")
        cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [APP_ROLE])
        if not cursor.fetchone():
            cursor.execute(f"CREATE ROLE {APP_ROLE} NOLOGIN")
    call_command("db_grant_app_role", APP_ROLE, stdout=StringIO())
    return as_app_role


@contextmanager
def as_app_role() -> Iterator:
    """The connection acts as the app role (SET ROLE), as if it had logged in as it."""
    with connection.cursor() as cursor:
        cursor.execute(f"SET ROLE {APP_ROLE}")
        try:
            yield cursor
        finally:
            cursor.execute("RESET ROLE")


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
