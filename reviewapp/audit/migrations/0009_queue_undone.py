# The queue's audited undo of a lawyer's own decision (queue.decisions.queue_item_undo).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0008_no_truncate_switch"),
    ]

    operations = [
        migrations.AlterField(
            model_name="auditevent",
            name="action",
            field=models.CharField(
                choices=[
                    ("contract.uploaded", "Contract uploaded"),
                    ("passage.transition", "Passage state changed"),
                    ("queue.claimed", "Queue item claimed"),
                    ("queue.decided", "Queue item decided"),
                    ("queue.overridden", "Rejection overridden"),
                    ("queue.commented", "Queue item commented"),
                    ("queue.opened", "Queue item opened"),
                    ("queue.handed_over", "Queue item handed over"),
                    ("queue.mentioned", "Lawyer mentioned"),
                    ("queue.note_edited", "Decision note changed"),
                    ("queue.escalated", "Queue item escalated"),
                    ("queue.undone", "Queue decision undone"),
                    ("playbook.copied", "Playbook copied"),
                    ("playbook.version_created", "Playbook edited"),
                    ("playbook.activated", "Playbook activated"),
                    ("router.trained", "Router retrained"),
                    ("router.activated", "Router activated"),
                    ("contract.deleted", "Contract deleted"),
                    ("matter.retention_set", "Retention period set"),
                    ("matter.legal_hold_set", "Legal hold placed"),
                    ("matter.legal_hold_lifted", "Legal hold lifted"),
                    ("organisation.member_added", "Organisation member added"),
                    ("organisation.member_removed", "Organisation member removed"),
                    ("auth.sessions_revoked", "Sessions and tokens revoked"),
                    ("audit.checkpoint", "Audit checkpoint written"),
                    ("matter.created", "Matter created"),
                    ("matter.member_added", "Member added"),
                    ("matter.member_role_changed", "Member's role changed"),
                    ("matter.member_removed", "Member removed"),
                    ("export.created", "Export created"),
                    ("review.rerun", "Review re-run on a newer playbook"),
                    ("matter.rerun", "Matter re-run started"),
                    ("auth.signed_in", "Signed in"),
                    ("auth.sign_in_failed", "Sign-in failed"),
                    ("auth.signed_out", "Signed out"),
                    ("access.denied", "Permission denied"),
                    ("access.websocket_refused", "Websocket refused"),
                ],
                max_length=40,
            ),
        ),
    ]
