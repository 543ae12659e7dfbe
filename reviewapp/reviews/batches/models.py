"""Message Batches of a bulk upload's model work, and which draft or checks each request is for.

Imported by ``reviews.models`` (Django finds an app's models there); what works on them is in
the other modules of ``reviews.batches``.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import models
from django.utils.translation import gettext_lazy as _


class ModelBatchStatus(models.TextChoices):
    COLLECTING = "COLLECTING", _("Collecting requests")
    SUBMITTING = "SUBMITTING", _("Sending")
    IN_PROGRESS = "IN_PROGRESS", _("Processing")
    CANCELING = "CANCELING", _("Canceling")
    ENDED = "ENDED", _("Ended, results arriving")
    LANDED = "LANDED", _("Results in")
    FAILED = "FAILED", _("Failed")


UNFINISHED_BATCH_STATUSES = (
    ModelBatchStatus.COLLECTING,
    ModelBatchStatus.SUBMITTING,
    ModelBatchStatus.IN_PROGRESS,
    ModelBatchStatus.CANCELING,
    ModelBatchStatus.ENDED,
)


class ModelBatchRound(models.TextChoices):
    # Drafts go first: a draft can flag passages, whose checks then join the second round.
    DRAFTS = "drafts", _("Drafts")
    VERIFICATIONS = "verifications", _("Verifications")


class ModelBatch(models.Model):
    """One Message Batch (``anthropic_id`` once sent): the drafts, or the checks, of a bulk
    upload's contracts, with its cost estimated before it is sent and added up after."""

    matter = models.ForeignKey(
        "accounts.Matter", on_delete=models.CASCADE, related_name="model_batches"
    )
    intake_batch = models.ForeignKey(
        "contracts.IntakeBatch",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="model_batches",
    )
    round = models.CharField(max_length=16, choices=ModelBatchRound.choices)
    # The drafts batch whose landing collected this batch's checks (verifications round).
    follows = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="followers"
    )
    status = models.CharField(
        max_length=16, choices=ModelBatchStatus.choices, default=ModelBatchStatus.COLLECTING
    )
    anthropic_id = models.CharField(max_length=100, blank=True)
    request_count = models.PositiveIntegerField(default=0)
    processing_count = models.PositiveIntegerField(default=0)
    succeeded_count = models.PositiveIntegerField(default=0)
    errored_count = models.PositiveIntegerField(default=0)
    canceled_count = models.PositiveIntegerField(default=0)
    expired_count = models.PositiveIntegerField(default=0)
    estimated_cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal(0))
    # Null until the results are in: the sum of the requests' recorded model calls.
    actual_cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    landed_at = models.DateTimeField(null=True, blank=True)
    # Polling: claimed with a conditional update of next_poll_at, so two polls act once.
    next_poll_at = models.DateTimeField(null=True, blank=True)
    polls = models.PositiveIntegerField(default=0)
    poll_errors = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "next_poll_at"])]

    def __str__(self) -> str:
        return f"Model batch {self.pk} ({self.round}, {self.status})"


class ModelBatchRequestKind(models.TextChoices):
    DRAFT = "draft", _("Draft")
    VERIFY = "verify", _("Verification")


class ModelBatchRequest(models.Model):
    """One request of a batch: a chunk of a review's draft, or a group of its checks (the same
    groups an interactive run makes). A review's work belongs to its batches while any of its
    requests has not landed: the sweeper leaves it alone and nothing queues it interactively."""

    batch = models.ForeignKey(ModelBatch, on_delete=models.CASCADE, related_name="requests")
    custom_id = models.CharField(max_length=64)
    kind = models.CharField(max_length=8, choices=ModelBatchRequestKind.choices)
    review = models.ForeignKey(
        "reviews.Review", on_delete=models.CASCADE, related_name="model_batch_requests"
    )
    draft = models.ForeignKey(
        "reviews.Draft", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    chunk = models.PositiveSmallIntegerField(default=0)
    verification_ids = models.JSONField(default=list, blank=True)
    estimated_cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal(0))
    # succeeded | errored | canceled | expired, or "failed" (the batch itself failed).
    result = models.CharField(max_length=16, blank=True)
    error = models.CharField(max_length=300, blank=True)
    model_call = models.OneToOneField(
        "reviews.ModelCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    landed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["batch", "custom_id"], name="model_batch_request_custom_id"
            )
        ]
        indexes = [models.Index(fields=["review", "landed_at"])]

    def __str__(self) -> str:
        return f"{self.custom_id} of {self.batch}"
