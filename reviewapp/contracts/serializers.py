from __future__ import annotations

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from reviewapp.api_errors import ErrorSerializer
from reviewapp.contracts.models import Contract, Passage


class ContractReviewSerializer(serializers.Serializer):
    """The contract's review, once its trigger scan has run."""

    id = serializers.IntegerField()
    status = serializers.CharField(help_text="IN_REVIEW, BLOCKED or COMPLETE")
    playbook_version = serializers.CharField(help_text='e.g. "commercial-en@2"')
    state_url = serializers.CharField(help_text="the review's state register")


class ContractSerializer(serializers.ModelSerializer):
    error = serializers.SerializerMethodField()
    passage_count = serializers.IntegerField(
        read_only=True, default=None, allow_null=True, help_text="none until it is read"
    )
    url = serializers.SerializerMethodField()
    download_url = serializers.SerializerMethodField()
    review = serializers.SerializerMethodField()

    class Meta:
        model = Contract
        fields = [
            "id",
            "matter",
            "original_name",
            "sha256",
            "size",
            "kind",
            "status",
            "progress",
            "error",
            "page_count",
            "ocr_pages",
            "folder_path",
            "intake_batch",
            "language",
            "contract_type",
            "passage_count",
            "timings_ms",
            "created_at",
            "ingested_at",
            "url",
            "download_url",
            "review",
        ]
        read_only_fields = fields

    @extend_schema_field(ContractReviewSerializer(allow_null=True))
    def get_review(self, contract: Contract) -> dict[str, object] | None:
        review = getattr(contract, "review", None)
        if review is None:
            return None
        return {
            "id": review.pk,
            "status": review.status,
            "playbook_version": review.playbook_version.label,
            "state_url": f"/api/reviews/{review.pk}/state/",
        }

    @extend_schema_field(ErrorSerializer(allow_null=True))
    def get_error(self, contract: Contract) -> dict[str, str] | None:
        if not contract.error_code:
            return None
        return {"code": contract.error_code, "message": gettext(contract.error_message)}

    def get_url(self, contract: Contract) -> str:
        return f"/contracts/{contract.pk}/"

    def get_download_url(self, contract: Contract) -> str:
        return f"/api/contracts/{contract.pk}/download/"


class UploadResultSerializer(ContractSerializer):
    duplicate = serializers.SerializerMethodField()

    class Meta(ContractSerializer.Meta):
        fields = [*ContractSerializer.Meta.fields, "duplicate"]
        read_only_fields = fields

    def get_duplicate(self, contract: Contract) -> bool:
        return bool(self.context.get("duplicate"))


class UploadSerializer(serializers.Serializer):
    file = serializers.FileField(allow_empty_file=True, use_url=False)
    batch = serializers.IntegerField(
        required=False, help_text="the bulk upload this file belongs to (POST .../intake/)"
    )
    path = serializers.CharField(
        required=False, allow_blank=True, help_text="its folder in the dropped folder"
    )


class PasswordSerializer(serializers.Serializer):
    password = serializers.CharField(min_length=1, max_length=1024, trim_whitespace=False)


class PassageSerializer(serializers.ModelSerializer):
    class Meta:
        model = Passage
        fields = [
            "index",
            "page",
            "start",
            "end",
            "number",
            "heading",
            "is_heading",
            "from_ocr",
            "state",
            "text",
        ]
        read_only_fields = fields
