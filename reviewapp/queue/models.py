from __future__ import annotations

from django.conf import settings
from django.db import models

from reviewapp.accounts.models import Matter
from reviewapp.contracts.models import Passage
from reviewapp.reviews.models import Review


class ItemStatus(models.TextChoices):
    OPEN = "OPEN", "Open"
    CLAIMED = "CLAIMED", "Claimed"
    DONE = "DONE", "Decided"


class Decision(models.TextChoices):
    ACCEPT = "accept", "Accept"
    REJECT = "reject", "Reject"


class QueueItem(models.Model):
    """A passage a lawyer must decide: NEEDS_HUMAN_REVIEW, or REJECTED by a rule or a model."""

    passage = models.ForeignKey(Passage, on_delete=models.CASCADE, related_name="queue_items")
    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="queue_items")
    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="queue_items")
    state = models.CharField(max_length=24)  # the passage's state when the item was opened
    severity = models.CharField(max_length=10)
    reason = models.CharField(max_length=300, blank=True)
    status = models.CharField(max_length=8, choices=ItemStatus.choices, default=ItemStatus.OPEN)
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    claimed_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decision = models.CharField(max_length=8, choices=Decision.choices, blank=True)
    note = models.TextField(blank=True)
    due_at = models.DateTimeField()
    escalated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["due_at", "id"]
        indexes = [models.Index(fields=["matter", "status", "due_at"])]
        constraints = [
            models.UniqueConstraint(
                fields=["passage"],
                condition=~models.Q(status="DONE"),
                name="queue_one_open_item_per_passage",
            )
        ]

    def __str__(self) -> str:
        return f"Queue item {self.pk} ({self.status})"
