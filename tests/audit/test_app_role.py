"""The app as a role that does not own the tables (`manage.py db_grant_app_role`): it appends
audit events and moves chain heads, and cannot change, delete or truncate them, whatever it sets.

The first tests act as such a role inside the test database (SET ROLE). The last ones log in as
the real app role that CI creates (.ci/run sets CLAUSEWISE_APP_DATABASE_URL to a database it
migrated as the owner and granted with the command)."""

from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction

from reviewapp.accounts.models import Organisation
from reviewapp.audit.models import AuditChain
from reviewapp.audit.services import audit_record
from tests.audit.conftest import chain_of, needs_postgresql
from tests.audit.test_chain import verify

pytestmark = [pytest.mark.django_db, needs_postgresql]

ROOT = Path(__file__).resolve().parents[2]
APP_DATABASE_URL = os.environ.get("CLAUSEWISE_APP_DATABASE_URL", "")


def refused(cursor, sql: str, params: list | None = None) -> str:
    with pytest.raises(DatabaseError) as error, transaction.atomic():
        cursor.execute(sql, params)
    return str(error.value)


def test_the_app_role_appends_events_and_moves_the_head(org_events, app_role):
    organisation, _ = org_events
    with app_role():
        for n in range(3):
            audit_record(
                organisation_id=organisation.pk,
                action="queue.claimed",
                actor_kind="user",
                actor="li",
                target_type="queue_item",
                target_id=n,
            )
        audit_record(
            organisation_id=None,
            action="auth.sign_in_failed",
            actor_kind="anonymous",
            actor="",
            target_type="",
            target_id="",
        )
    assert [event.seq for event in chain_of(organisation.pk)] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert AuditChain.objects.get(organisation=organisation).last_seq == 8
    assert verify()[2] is None


def test_the_app_role_cannot_change_delete_or_truncate_events(org_events, app_role):
    _, events = org_events
    with app_role() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET clausewise.audit_truncate = 'allow'")
        assert "permission denied" in refused(cursor, "UPDATE audit_auditevent SET actor = 'x'")
        assert "permission denied" in refused(cursor, "DELETE FROM audit_auditevent")
        for table in ("audit_auditevent", "audit_auditchain"):
            assert "permission denied" in refused(cursor, f"TRUNCATE {table} CASCADE")
        cursor.execute("RESET clausewise.audit_truncate")
    assert [event.actor for event in chain_of(events[0].organisation_id)] == ["rita"] * 5


def test_the_app_role_moves_heads_only_forward(org_events, app_role):
    organisation, _ = org_events
    head = AuditChain.objects.get(organisation=organisation)
    with app_role() as cursor:
        back = "UPDATE audit_auditchain SET last_seq = 1 WHERE id = %s"
        assert "only move forward" in refused(cursor, back, [head.pk])
        rename = "UPDATE audit_auditchain SET key = 'org:0' WHERE id = %s"
        assert "permission denied" in refused(cursor, rename, [head.pk])
        assert "permission denied" in refused(cursor, "DELETE FROM audit_auditchain")
    assert AuditChain.objects.get(pk=head.pk).last_seq == 5


def test_the_app_role_cannot_switch_the_triggers_off(org_events, app_role):
    with app_role() as cursor:
        assert "permission denied" in refused(cursor, "SET session_replication_role = replica")
        disable = "ALTER TABLE audit_auditevent DISABLE TRIGGER audit_event_append_only"
        assert "must be owner" in refused(cursor, disable)
        replace = "CREATE OR REPLACE FUNCTION audit_refuse_change() RETURNS trigger "
        replace += "LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$"
        message = refused(cursor, replace)  # PostgreSQL 15 refuses CREATE in public first
        assert "must be owner" in message or "permission denied for schema" in message


def test_the_app_role_keeps_full_dml_on_other_tables_but_no_truncate(org_events, app_role):
    organisation, _ = org_events
    with app_role() as cursor:
        cursor.execute(
            "UPDATE accounts_organisation SET name = 'Renamed' WHERE id = %s", [organisation.pk]
        )
        assert "permission denied" in refused(cursor, "TRUNCATE accounts_matter CASCADE")
    assert Organisation.objects.get(pk=organisation.pk).name == "Renamed"


def test_grant_refuses_a_role_that_could_lift_the_rules():
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        (owner,) = cursor.fetchone()
    with pytest.raises(CommandError, match="could lift the audit log's rules"):
        call_command("db_grant_app_role", owner, stdout=StringIO())
    with pytest.raises(CommandError, match="not a plain role name"):
        call_command("db_grant_app_role", 'x"; DROP TABLE y; --', stdout=StringIO())


needs_app_database = pytest.mark.skipif(
    not APP_DATABASE_URL,
    reason="set CLAUSEWISE_APP_DATABASE_URL to a database migrated by its owner and granted to "
    "a login role with db_grant_app_role, as .ci/run does",
)


@needs_app_database
@pytest.mark.xdist_group("app-database")  # one database shared by these tests
def test_logged_in_as_the_app_role_audit_rows_stay_put():
    import psycopg

    with psycopg.connect(APP_DATABASE_URL, autocommit=True) as conn:
        (owns,) = conn.execute(
            "SELECT pg_has_role(current_user, relowner, 'USAGE') FROM pg_class "
            "WHERE oid = 'audit_auditevent'::regclass"
        ).fetchone()
        assert owns is False
        conn.execute("SET clausewise.audit_truncate = 'allow'")
        for sql in (
            "TRUNCATE audit_auditevent CASCADE",
            "TRUNCATE audit_auditchain CASCADE",
            "UPDATE audit_auditevent SET actor = 'mallory'",
            "DELETE FROM audit_auditevent",
            "DELETE FROM audit_auditchain",
            "SET session_replication_role = replica",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(sql)


@needs_app_database
@pytest.mark.xdist_group("app-database")  # one database shared by these tests
def test_logged_in_as_the_app_role_the_app_writes_and_verifies(tmp_path):
    env = {
        **os.environ,
        "DATABASE_URL": APP_DATABASE_URL,
        "DJANGO_SETTINGS_MODULE": "reviewapp.settings.test",
        "AUDIT_CHECKPOINT_DIR": str(tmp_path),
    }
    for command in ("audit_checkpoint", "audit_checkpoint", "verify_audit"):
        done = subprocess.run(
            [sys.executable, "manage.py", command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    assert "checkpoint checkpoint-" in done.stdout and "system chain:" in done.stdout
    assert len(list(tmp_path.glob("checkpoint-*.json"))) == 2
