"""The bulk-intake API's request and response shapes (documented in the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers

from reviewapp.contracts.intake.codes import FailureCode
from reviewapp.contracts.intake.progress import IntakeProgress


def failure_text(failure: dict[str, Any]) -> str:
    """A stored reason (a catalogue id, maybe with values) in the reader's language."""
    message = gettext(str(failure.get("message", "")))
    params = failure.get("params")
    if isinstance(params, dict) and params:
        try:
            return message % params
        except (KeyError, TypeError, ValueError):
            return message
    return message


class IntakeUploadSerializer(serializers.Serializer):
    one_of_fields = ("file", "manifest")  # a zip, or files announced (the schema says so)
    file = serializers.FileField(
        required=False, help_text="a zip of PDF, DOCX and TXT files (folders inside are kept)"
    )
    use_model_batch = serializers.BooleanField(
        required=False,
        default=False,
        help_text="review through the Message Batches API (half price, results within 24 h); "
        "only with the Claude engine",
    )
    batch = serializers.IntegerField(
        required=False, help_text="a batch announced before (the browser's way), for the zip"
    )
    manifest = serializers.JSONField(
        required=False,
        help_text='announce files to send one by one: [{"name": "a.pdf", "path": "Leases/2019"}]',
    )
    kind = serializers.ChoiceField(
        choices=["zip", "folder", "files"], required=False, default="files"
    )
    name = serializers.CharField(required=False, default="", max_length=255)


class IntakeFailureSerializer(serializers.Serializer):
    name = serializers.CharField()
    path = serializers.CharField(help_text="the folder in the zip or the dropped folder")
    code = serializers.ChoiceField(
        choices=FailureCode.choices, help_text="why: one of a fixed list (intake/codes.py)"
    )
    message = serializers.CharField()
    contract_id = serializers.IntegerField(allow_null=True)


class IntakeBatchSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    matter = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField(help_text="zip, folder or files")
    status = serializers.CharField(help_text="RECEIVING, RECEIVED or REFUSED")
    total = serializers.IntegerField(help_text="documents in the batch (N)")
    done = serializers.IntegerField(help_text="documents whose ingestion has ended (n of N)")
    failed = serializers.IntegerField()
    finished = serializers.BooleanField()
    use_model_batch = serializers.BooleanField()
    upload_incomplete = serializers.BooleanField(
        help_text="the sender stopped before every announced file arrived"
    )
    failures = IntakeFailureSerializer(many=True)
    missing = serializers.ListField(child=serializers.DictField(), help_text="announced, not sent")
    created_at = serializers.DateTimeField()


def intake_batch_data(progress: IntakeProgress) -> dict[str, Any]:
    batch = progress.batch
    failures = [
        {
            "name": item.get("name", ""),
            "path": item.get("path", ""),
            "code": item.get("code", ""),
            "message": failure_text(item),
            "contract_id": item.get("contract_id"),
        }
        for item in progress.failures
    ]
    data = {
        "id": batch.pk,
        "matter": batch.matter_id,
        "name": batch.name,
        "kind": batch.source,
        "status": batch.status,
        "total": progress.total,
        "done": progress.done,
        "failed": progress.failed,
        "finished": progress.finished,
        "use_model_batch": batch.use_model_batch,
        "upload_incomplete": progress.stalled,
        "failures": failures,
        "missing": progress.missing,
        "created_at": batch.created_at,
    }
    return IntakeBatchSerializer(data).data
