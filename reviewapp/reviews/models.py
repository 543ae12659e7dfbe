from __future__ import annotations

from django.db import models

from reviewapp.contracts.models import Contract, Passage, PassageState
from reviewapp.rules.models import PlaybookVersion


class ReviewStatus(models.TextChoices):
    IN_REVIEW = "IN_REVIEW", "In review"
    BLOCKED = "BLOCKED", "Blocked"
    COMPLETE = "COMPLETE", "Complete"


class Review(models.Model):
    """The review of one contract: which playbook version it ran with, and where it stands."""

    contract = models.OneToOneField(Contract, on_delete=models.CASCADE, related_name="review")
    playbook_version = models.ForeignKey(PlaybookVersion, on_delete=models.PROTECT)
    status = models.CharField(max_length=16, choices=ReviewStatus.choices)
    scan_ms = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Review {self.pk} of {self.contract}"


class RuleFiring(models.Model):
    """One rule that fired on one passage, with the span that made it fire."""

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="firings")
    passage = models.ForeignKey(Passage, on_delete=models.CASCADE, related_name="firings")
    playbook_version = models.ForeignKey(PlaybookVersion, on_delete=models.PROTECT)
    rule_id = models.CharField(max_length=120)
    category = models.CharField(max_length=80)
    action = models.CharField(max_length=10)
    severity = models.CharField(max_length=10)
    match_start = models.PositiveIntegerField()
    match_end = models.PositiveIntegerField()

    class Meta:
        ordering = ["passage_id", "rule_id"]
        indexes = [
            models.Index(fields=["playbook_version", "rule_id"]),
            models.Index(fields=["category"]),
        ]

    def __str__(self) -> str:
        return f"{self.rule_id} on {self.passage}"


class ActorKind(models.TextChoices):
    RULE = "rule", "Trigger rule"
    MODEL = "model", "Model"
    ENGINE = "engine", "Offline engine"
    USER = "user", "User"
    SYSTEM = "system", "System"


class PassageTransition(models.Model):
    """Every change of a passage's state: who (rule version, model, user), when, from, to, why."""

    passage = models.ForeignKey(Passage, on_delete=models.CASCADE, related_name="transitions")
    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="transitions")
    from_state = models.CharField(  # noqa: DJ001 - null is "before the scan", not a state
        max_length=24, choices=PassageState.choices, null=True
    )
    to_state = models.CharField(max_length=24, choices=PassageState.choices)
    actor_kind = models.CharField(max_length=8, choices=ActorKind.choices)
    actor = models.CharField(max_length=200)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.passage}: {self.from_state} -> {self.to_state}"
