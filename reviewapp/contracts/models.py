from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from reviewapp.accounts.models import Matter


class DocumentStatus(models.TextChoices):
    """A document's status, labelled in the words every page shows (the matter page, the
    contract page, the grid and its exports)."""

    QUEUED = "QUEUED", _("Queued")
    INGESTING = "INGESTING", _("Reading")
    INGESTED = "INGESTED", _("Ready")
    NEEDS_PASSWORD = "NEEDS_PASSWORD", _("Needs password")
    NEEDS_OCR = "NEEDS_OCR", _("Needs OCR")
    PARSE_FAILED = "PARSE_FAILED", _("Could not read")
    TOO_LARGE = "TOO_LARGE", _("Too large")
    UNSUPPORTED_TYPE = "UNSUPPORTED_TYPE", _("Unsupported type")


FAILED_STATUSES = frozenset(
    {
        DocumentStatus.NEEDS_PASSWORD,
        DocumentStatus.NEEDS_OCR,
        DocumentStatus.PARSE_FAILED,
        DocumentStatus.TOO_LARGE,
        DocumentStatus.UNSUPPORTED_TYPE,
    }
)
WORKING_STATUSES = frozenset({DocumentStatus.QUEUED, DocumentStatus.INGESTING})


class IntakeStatus(models.TextChoices):
    RECEIVING = "RECEIVING", _("Receiving")
    RECEIVED = "RECEIVED", _("Received")
    REFUSED = "REFUSED", _("Refused")


class IntakeBatch(models.Model):
    """One bulk upload (a zip, a dropped folder, several files): its documents are its
    ``contracts``; entries that never became a contract are kept in ``failures``."""

    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="intake_batches")
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    name = models.CharField(max_length=255)
    source = models.CharField(max_length=16, blank=True)  # "zip", "folder" or "files"
    status = models.CharField(
        max_length=16, choices=IntakeStatus.choices, default=IntakeStatus.RECEIVING
    )
    # The number of documents announced (a browser's manifest) or found in the zip.
    total = models.PositiveIntegerField(default=0)
    # Announced by the browser and not yet received: [{"name", "path"}].
    expected = models.JSONField(default=list, blank=True)
    # Entries refused before they became a contract: [{"name", "path", "code", "message"}].
    failures = models.JSONField(default=list, blank=True)
    error_code = models.CharField(max_length=32, blank=True)
    error_message = models.TextField(blank=True)
    # Send the model review of this batch through the Message Batches API (Claude engine only).
    use_model_batch = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


def stored_file_name(instance: Contract, filename: str) -> str:
    # Never reuse the uploader's name on disk: it may contain anything.
    return f"contracts/{instance.matter_id}/{uuid.uuid4().hex}"


class Contract(models.Model):
    matter = models.ForeignKey(Matter, on_delete=models.PROTECT, related_name="contracts")
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    original_name = models.CharField(max_length=255)
    file = models.FileField(upload_to=stored_file_name, max_length=255)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()
    kind = models.CharField(max_length=16, blank=True)
    status = models.CharField(
        max_length=20, choices=DocumentStatus.choices, default=DocumentStatus.QUEUED
    )
    error_code = models.CharField(max_length=32, blank=True)
    error_message = models.TextField(blank=True)
    progress = models.PositiveSmallIntegerField(default=0)
    text = models.TextField(blank=True)
    encoding = models.CharField(max_length=32, blank=True)
    page_count = models.PositiveIntegerField(default=0)
    page_spans = models.JSONField(default=list, blank=True)
    language = models.CharField(max_length=8, blank=True)
    contract_type = models.CharField(max_length=64, blank=True)
    timings_ms = models.JSONField(default=dict, blank=True)
    ingest_attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    ingested_at = models.DateTimeField(null=True, blank=True)
    intake_batch = models.ForeignKey(
        IntakeBatch, null=True, blank=True, on_delete=models.SET_NULL, related_name="contracts"
    )
    # Its place in the batch's zip (the entry's key there: names may repeat), None otherwise.
    intake_position = models.PositiveIntegerField(null=True, blank=True)
    # Where the document sat in the uploaded folder or zip ("Leases/2019/"), without its name.
    folder_path = models.CharField(max_length=500, blank=True)
    # Pages whose text was read from the image by OCR (0: the PDF had a text layer).
    ocr_pages = models.PositiveIntegerField(default=0)
    # The party the firm acts for in this contract, over the matter's (blank: the matter's).
    acting_for_name = models.CharField(max_length=200, blank=True)
    acting_for_role = models.CharField(max_length=80, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["matter", "sha256"], name="contract_unique_per_matter")
        ]
        indexes = [models.Index(fields=["status", "updated_at"])]

    def __str__(self) -> str:
        return self.original_name

    @property
    def is_failed(self) -> bool:
        return self.status in FAILED_STATUSES

    @property
    def is_working(self) -> bool:
        return self.status in WORKING_STATUSES


class PassageState(models.TextChoices):
    CONFIRMED = "CONFIRMED", _("Confirmed")
    PENDING = "PENDING", _("Pending")
    REJECTED = "REJECTED", _("Rejected")
    NEEDS_HUMAN_REVIEW = "NEEDS_HUMAN_REVIEW", _("Needs human review")


class Passage(models.Model):
    contract = models.ForeignKey(Contract, on_delete=models.CASCADE, related_name="passages")
    index = models.PositiveIntegerField()
    page = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    number = models.CharField(max_length=64, blank=True)
    heading = models.CharField(max_length=300, blank=True)
    is_heading = models.BooleanField(default=False)
    # Read by OCR from a page image: its words may be misread.
    from_ocr = models.BooleanField(default=False)
    text = models.TextField()
    # Null until the trigger scan has run on the passage.
    state = models.CharField(  # noqa: DJ001 - null and '' would both mean "not scanned"
        max_length=24, choices=PassageState.choices, null=True, blank=True
    )

    class Meta:
        ordering = ["contract", "index"]
        constraints = [
            models.UniqueConstraint(fields=["contract", "index"], name="passage_unique_index")
        ]
        indexes = [
            # The admins' reports read state and length of flagged passages by id, index-only.
            models.Index(
                fields=["id"], include=["state", "start", "end"], name="passage_report_idx"
            )
        ]

    def __str__(self) -> str:
        return f"{self.contract_id}#{self.index}"
