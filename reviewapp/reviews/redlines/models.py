"""The Redline model: one per issue (a category flagged on a passage) of a review."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from reviewapp.contracts.models import Passage


class RedlineStatus(models.TextChoices):
    DRAFT = "DRAFT", _("Draft")
    ACCEPTED = "ACCEPTED", _("Accepted")
    WITHDRAWN = "WITHDRAWN", _("Withdrawn")


class RedlineSource(models.TextChoices):
    VERIFIER = "verifier", _("Verifier's suggestion")
    PLAYBOOK = "playbook", _("Playbook's standard wording")
    LAWYER = "lawyer", _("Written by a lawyer")


class Redline(models.Model):
    """Replace contract text [span_start, span_end) (offsets into `Contract.text`) with
    `replacement`. Only ACCEPTED redlines go into the exported Word files, each with its
    `counterparty_comment` (if any) on its change; every change is an audit event
    (`target_type="redline"`), which is its history."""

    review = models.ForeignKey("reviews.Review", on_delete=models.CASCADE, related_name="redlines")
    passage = models.ForeignKey(Passage, on_delete=models.CASCADE, related_name="redlines")
    category = models.CharField(max_length=80)
    rule_id = models.CharField(max_length=120, blank=True)
    span_start = models.PositiveIntegerField()
    span_end = models.PositiveIntegerField()
    original_text = models.TextField()
    replacement = models.TextField(blank=True)
    # Written by the lawyer for the other side: the only comment of the counterparty's file.
    counterparty_comment = models.TextField(blank=True, default="")
    source = models.CharField(max_length=10, choices=RedlineSource.choices)
    status = models.CharField(
        max_length=10, choices=RedlineStatus.choices, default=RedlineStatus.DRAFT
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    accepted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["span_start", "id"]
        constraints = [
            models.UniqueConstraint(fields=["passage", "category"], name="redline_one_per_issue"),
            models.CheckConstraint(
                condition=models.Q(span_end__gte=models.F("span_start")), name="redline_span"
            ),
        ]

    def __str__(self) -> str:
        return f"Redline {self.pk} ({self.category}) on {self.passage}"
