"""Events get the kind of their hash: rows written so far are plain SHA-256 ("v1"), new rows
are keyed ("v2"). Adding a column fires no row trigger, so the append-only rule holds."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("audit", "0006_more_actions")]

    operations = [
        migrations.AddField(
            model_name="auditevent",
            name="hash_kind",
            field=models.CharField(
                choices=[
                    ("v1", "SHA-256 of the canonical JSON (events written before keyed hashes)"),
                    ("v2", "HMAC-SHA256 of the canonical JSON, keyed with AUDIT_HMAC_KEY"),
                ],
                default="v1",
                max_length=8,
            ),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="auditevent",
            name="hash_kind",
            field=models.CharField(
                choices=[
                    ("v1", "SHA-256 of the canonical JSON (events written before keyed hashes)"),
                    ("v2", "HMAC-SHA256 of the canonical JSON, keyed with AUDIT_HMAC_KEY"),
                ],
                db_default="v2",
                max_length=8,
            ),
        ),
    ]
