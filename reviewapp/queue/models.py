from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from reviewapp.accounts.models import Matter
from reviewapp.contracts.models import Passage
from reviewapp.reviews.models import Review


class ItemStatus(models.TextChoices):
    OPEN = "OPEN", _("Open")
    CLAIMED = "CLAIMED", _("Claimed")
    DONE = "DONE", _("Decided")


class Decision(models.TextChoices):
    """What the lawyer decides is the clause itself, not the flag: the words say so."""

    ACCEPT = "accept", _("Clause acceptable")
    REJECT = "reject", _("Clause not acceptable")
    # A false flag: the category the rule or the router named is not what this clause is.
    NOT_THIS = "not_this", _("Not this kind of clause")


class QueueItem(models.Model):
    """A passage a lawyer must decide: NEEDS_HUMAN_REVIEW, or REJECTED by a rule or a model."""

    passage = models.ForeignKey(Passage, on_delete=models.CASCADE, related_name="queue_items")
    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="queue_items")
    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="queue_items")
    state = models.CharField(max_length=24)  # the passage's state when the item was opened
    severity = models.CharField(max_length=10)
    # The category of the most severe routing rule that fired (the queue filters on it).
    category = models.CharField(max_length=80, blank=True, default="")
    # A lawyer flagged this clause ("flag this clause"): the item asks about what they raised.
    raised_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Every category the item asks about, most likely first (empty on items opened before
    # per-category decisions: then ``category`` alone), and the lawyer's answer to each so far
    # ({category: "accept" | "reject" | "not_this"}); the item is decided when all are answered.
    categories = models.JSONField(default=list, blank=True)
    decisions = models.JSONField(default=dict, blank=True)
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
        indexes = [
            models.Index(fields=["matter", "status", "due_at"]),
            models.Index(
                fields=["status", "decided_by", "decided_at"], name="queue_decided_by_idx"
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["passage"],
                condition=~models.Q(status="DONE"),
                name="queue_one_open_item_per_passage",
            )
        ]

    def __str__(self) -> str:
        return f"Queue item {self.pk} ({self.status})"

    @property
    def asked(self) -> list[str]:
        """The categories this item asks about (``category`` alone on older items)."""
        if self.categories:
            return list(self.categories)
        return [self.category] if self.category else []


class QueueComment(models.Model):
    """A lawyer's comment on an item; the lawyers it @mentions are handed the item."""

    item = models.ForeignKey(QueueItem, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    body = models.TextField()
    mentions = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"Comment {self.pk} on item {self.item_id}"


class HistoryAction(models.TextChoices):
    OPENED = "opened", _("Opened")
    CLAIMED = "claimed", _("Claimed")
    HANDED_OVER = "handed_over", _("Handed over")
    MENTIONED = "mentioned", _("Mentioned")
    DECIDED = "decided", _("Decided")
    NOTE_EDITED = "note_edited", _("Note changed")
    ESCALATED = "escalated", _("Escalated")
    UNDONE = "undone", _("Decision undone")
    SEVERITY_SET = "severity_set", _("Severity set for our side")
    ANSWERED = "answered", _("Categories answered")
    RELEASED = "released", _("Claim released")
    FLAGGED = "flagged", _("Flagged by a lawyer")


class QueueHistory(models.Model):
    """What happened to an item, in order, as the lawyers see it on the queue page."""

    item = models.ForeignKey(QueueItem, on_delete=models.CASCADE, related_name="history")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=16, choices=HistoryAction.choices)
    detail = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name_plural = "queue history"

    def __str__(self) -> str:
        return f"{self.action} on item {self.item_id}"
