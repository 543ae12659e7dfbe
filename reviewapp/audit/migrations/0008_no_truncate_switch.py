"""No session setting lifts the append-only rule any more (0002 let `clausewise.audit_truncate`
allow a TRUNCATE, and any role with table privileges could set it).

UPDATE and DELETE of events are refused to everyone; chain heads only move forward. TRUNCATE
is allowed only to superusers and members of the role `clausewise_audit_maintenance` (when it
exists): Django's test runner empties tables that way. Such roles can disable triggers anyway;
the app's role is neither (see `manage.py db_grant_app_role`). The functions fix their
search_path, so a role cannot shadow pg_catalog functions with its own.
SQLite has no such triggers: this migration does nothing there.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION audit_refuse_change() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    maintainer oid := to_regrole('clausewise_audit_maintenance');
BEGIN
    IF TG_OP = 'TRUNCATE' AND (
        (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
        OR (maintainer IS NOT NULL AND pg_has_role(current_user, maintainer, 'MEMBER'))
    ) THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'the audit log is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE OR REPLACE FUNCTION audit_chain_forward_only() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.last_seq > OLD.last_seq AND NEW.key = OLD.key
            AND NEW.organisation_id IS NOT DISTINCT FROM OLD.organisation_id THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'audit chain heads only move forward: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$;
"""

# The functions of 0002, session switch included.
BACKWARD = """
CREATE OR REPLACE FUNCTION audit_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' AND current_setting('clausewise.audit_truncate', true) = 'allow' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'the audit log is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$;
ALTER FUNCTION audit_refuse_change() RESET search_path;
ALTER FUNCTION audit_chain_forward_only() RESET search_path;
"""


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("audit", "0007_auditevent_hash_kind")]

    operations = [migrations.RunPython(_on_postgresql(FORWARD), _on_postgresql(BACKWARD))]
