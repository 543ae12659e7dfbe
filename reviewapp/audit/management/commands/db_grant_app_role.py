"""`manage.py db_grant_app_role ROLE`: the PostgreSQL role the app runs as, without ownership.

Run it as the owner of the tables after every `migrate` (it is idempotent). The role gets full
DML on the app's tables; on the audit tables it may read and append events, create chain heads
and move their seq, hash and time (the writers' locked update), nothing else; no TRUNCATE
anywhere. A role that owns the tables (or is a superuser, or may act as the owner) is refused:
it could disable the audit triggers.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections, transaction

from reviewapp.audit.models import AuditChain, AuditEvent

ROLE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
MAINTENANCE_ROLE = "clausewise_audit_maintenance"  # may TRUNCATE audit tables (migration 0008)
CHAIN_HEAD_COLUMNS = ("last_seq", "last_hash", "updated_at")


class Command(BaseCommand):
    help = (
        "Create a PostgreSQL login role if missing and grant it what the app needs, without "
        "ownership: DML on app tables, SELECT/INSERT on audit events, the chain head update."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("role", help="role name (lower case letters, digits, _)")
        parser.add_argument("--database", default="default", help="database alias")

    def handle(self, *args: Any, role: str, database: str = "default", **options: Any) -> None:
        if not ROLE_NAME.match(role):
            raise CommandError(f"{role!r} is not a plain role name (a-z, 0-9, _)")
        connection = connections[database]
        if connection.vendor != "postgresql":
            raise CommandError("db_grant_app_role needs PostgreSQL (SQLite has no roles)")
        with transaction.atomic(using=database), connection.cursor() as cursor:
            created = _ensure_role(cursor, role)
            _refuse_owner_powers(cursor, role)
            tables = _grant(cursor, role, quote=connection.ops.quote_name)
        made = "created and granted" if created else "granted"
        self.stdout.write(
            f"{role}: {made} on {tables} tables (audit events: SELECT, INSERT; chain heads: "
            f"SELECT, INSERT, UPDATE ({', '.join(CHAIN_HEAD_COLUMNS)})); no TRUNCATE"
        )


def _ensure_role(cursor: Any, role: str) -> bool:
    cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
    if cursor.fetchone():
        return False
    cursor.execute(f'CREATE ROLE "{role}" LOGIN')
    return True


def _refuse_owner_powers(cursor: Any, role: str) -> None:
    cursor.execute(
        "SELECT r.rolsuper, pg_has_role(r.oid, c.relowner, 'USAGE'), "
        "  COALESCE(pg_has_role(r.oid, to_regrole(%s), 'MEMBER'), false) "
        "FROM pg_roles r, pg_class c WHERE r.rolname = %s AND c.oid = to_regclass(%s)",
        [MAINTENANCE_ROLE, role, AuditEvent._meta.db_table],
    )
    row = cursor.fetchone()
    if row is None:
        raise CommandError("the audit tables are missing: run migrate first")
    superuser, acts_as_owner, maintainer = row
    if superuser or acts_as_owner or maintainer:
        raise CommandError(
            f"{role} is a superuser, owns the tables or may act as their owner or as "
            f"{MAINTENANCE_ROLE}: it could lift the audit log's rules. Use another role."
        )


def _grant(cursor: Any, role: str, *, quote: Any) -> int:
    cursor.execute("SELECT current_database(), current_schema()")
    database, schema = cursor.fetchone()
    grantee = quote(role)
    cursor.execute(f"GRANT CONNECT ON DATABASE {quote(database)} TO {grantee}")
    cursor.execute(f"GRANT USAGE ON SCHEMA {quote(schema)} TO {grantee}")
    cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", [schema])
    tables = [name for (name,) in cursor.fetchall()]
    for table in tables:
        cursor.execute(f"REVOKE ALL ON TABLE {quote(table)} FROM {grantee}")
        cursor.execute(f"GRANT {_privileges(table)} ON TABLE {quote(table)} TO {grantee}")
    cursor.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA {quote(schema)} TO {grantee}")
    return len(tables)


def _privileges(table: str) -> str:
    if table == AuditEvent._meta.db_table:
        return "SELECT, INSERT"
    if table == AuditChain._meta.db_table:
        return f"SELECT, INSERT, UPDATE ({', '.join(CHAIN_HEAD_COLUMNS)})"
    return "SELECT, INSERT, UPDATE, DELETE"
