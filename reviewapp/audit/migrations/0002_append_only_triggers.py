"""On PostgreSQL, the database itself refuses to change or remove audit rows.

Audit events can only be inserted; chain heads can only move forward. TRUNCATE is refused
too, unless the session sets `clausewise.audit_truncate = 'allow'` (the test settings do, so
Django can empty tables between transactional tests). An owner can still disable triggers:
`verify_audit` is what catches that.
SQLite has no such triggers: this migration does nothing there.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION audit_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' AND current_setting('clausewise.audit_truncate', true) = 'allow' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'the audit log is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE OR REPLACE FUNCTION audit_chain_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.last_seq > OLD.last_seq AND NEW.key = OLD.key
            AND NEW.organisation_id IS NOT DISTINCT FROM OLD.organisation_id THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'audit chain heads only move forward: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER audit_event_append_only BEFORE UPDATE OR DELETE ON audit_auditevent
    FOR EACH ROW EXECUTE FUNCTION audit_refuse_change();
CREATE TRIGGER audit_event_no_truncate BEFORE TRUNCATE ON audit_auditevent
    FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change();
CREATE TRIGGER audit_chain_forward_only BEFORE UPDATE OR DELETE ON audit_auditchain
    FOR EACH ROW EXECUTE FUNCTION audit_chain_forward_only();
CREATE TRIGGER audit_chain_no_truncate BEFORE TRUNCATE ON audit_auditchain
    FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS audit_chain_no_truncate ON audit_auditchain;
DROP TRIGGER IF EXISTS audit_chain_forward_only ON audit_auditchain;
DROP TRIGGER IF EXISTS audit_event_no_truncate ON audit_auditevent;
DROP TRIGGER IF EXISTS audit_event_append_only ON audit_auditevent;
DROP FUNCTION IF EXISTS audit_chain_forward_only();
DROP FUNCTION IF EXISTS audit_refuse_change();
"""


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]

    operations = [migrations.RunPython(_on_postgresql(FORWARD), _on_postgresql(BACKWARD))]
