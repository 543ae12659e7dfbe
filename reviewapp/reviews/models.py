from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from reviewapp.contracts.models import Contract, Passage, PassageState
from reviewapp.rules.models import PlaybookVersion


class ReviewStatus(models.TextChoices):
    IN_REVIEW = "IN_REVIEW", _("In review")
    BLOCKED = "BLOCKED", _("Blocked")
    COMPLETE = "COMPLETE", _("Complete")


class Review(models.Model):
    """The review of one contract: which playbook version it ran with, and where it stands."""

    contract = models.OneToOneField(Contract, on_delete=models.CASCADE, related_name="review")
    playbook_version = models.ForeignKey(PlaybookVersion, on_delete=models.PROTECT)
    status = models.CharField(max_length=16, choices=ReviewStatus.choices)
    engine = models.CharField(max_length=16, default="offline")
    # The learned router the scan ran with ("" when the playbook has it off).
    router_version = models.CharField(max_length=120, blank=True, default="")
    # The second-stage check the scan ran with ("" when the playbook has it off or none ships).
    check_version = models.CharField(max_length=120, blank=True, default="")
    # Text addressed to an AI found by the scan: withheld from every model call, and no model
    # CONFIRMED is accepted for this contract.
    planted_spans = models.JSONField(default=list, blank=True)
    scan_ms = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # When the review last became COMPLETE (turnaround in the admins' reports).
    completed_at = models.DateTimeField(null=True, blank=True)
    # Set by the scan, never changed: the reports add these up instead of reading every passage.
    passage_count = models.PositiveIntegerField(default=0)
    char_count = models.PositiveBigIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["created_at"], name="review_created_at_idx")]

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
    # Copies of the passage's current state and length, kept in step by the scan and
    # passage_transition, so the admins' reports count how each rule's hits ended without
    # joining a million passages.
    passage_state = models.CharField(max_length=24, blank=True, default="")
    passage_chars = models.PositiveIntegerField(default=0)
    # True on one firing per flagged passage (its first), so passages are counted without DISTINCT.
    passage_first = models.BooleanField(default=False)
    # A learned router flag: its probability and the words that weighed most (rules: null, []).
    score = models.FloatField(null=True, blank=True)
    words = models.JSONField(default=list, blank=True)
    # The match as offsets into the passage's (normalised) text, for highlighting it there.
    text_start = models.PositiveIntegerField(null=True, blank=True)
    text_end = models.PositiveIntegerField(null=True, blank=True)
    # The second-stage check's word on this firing's category on this passage: its calibrated
    # score, the category's threshold, the features that weighed most, and whether it dropped
    # the category (null score: the check did not run). A lawyer who reopens a dropped flag
    # clears ``dropped``; the score stays.
    check_score = models.FloatField(null=True, blank=True)
    check_threshold = models.FloatField(null=True, blank=True)
    check_features = models.JSONField(default=list, blank=True)
    dropped = models.BooleanField(default=False)

    class Meta:
        ordering = ["passage_id", "rule_id"]
        indexes = [
            models.Index(fields=["playbook_version", "rule_id"]),
            models.Index(fields=["category"]),
        ]

    def __str__(self) -> str:
        return f"{self.rule_id} on {self.passage}"


class ActorKind(models.TextChoices):
    RULE = "rule", _("Trigger rule")
    MODEL = "model", _("Model")
    ENGINE = "engine", _("Offline engine")
    USER = "user", _("User")
    SYSTEM = "system", _("System")


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


class LabelKind(models.TextChoices):
    """A lawyer's word on one category of one passage."""

    ACCEPT = "accept", _("There, acceptable")
    REJECT = "reject", _("There, not acceptable")
    NOT_THIS = "not_this", _("Not this kind of clause")
    FLAGGED = "flagged", _("Flagged by a lawyer")


class PassageLabel(models.Model):
    """The latest word of a lawyer on a (passage, category): what the organisation's retraining
    learns (``not_this`` a negative example, the others positive) and what a re-run keeps (a
    ``not_this`` category is not raised there again; a lawyer's flag stays). ``item_id`` is the
    queue item it came from (the queue sits above reviews, so no foreign key)."""

    passage = models.ForeignKey(Passage, on_delete=models.CASCADE, related_name="lawyer_labels")
    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="lawyer_labels")
    category = models.CharField(max_length=80)
    kind = models.CharField(max_length=10, choices=LabelKind.choices)
    # A lawyer flagged this category here ("flag this clause"): it stays through a re-run.
    raised = models.BooleanField(default=False)
    item_id = models.PositiveIntegerField(null=True, blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["passage_id", "category"]
        constraints = [
            models.UniqueConstraint(fields=["passage", "category"], name="passage_label_unique")
        ]

    def __str__(self) -> str:
        return f"{self.category} on {self.passage}: {self.kind}"


class Engine(models.TextChoices):
    OFFLINE = "offline", _("Offline (no language model)")
    ANTHROPIC = "anthropic", _("Claude")


class DraftStatus(models.TextChoices):
    QUEUED = "QUEUED", _("Queued")
    STREAMING = "STREAMING", _("Streaming")
    COMPLETE = "COMPLETE", _("Complete")
    FAILED = "FAILED", _("Failed")


class Draft(models.Model):
    """The L1 draft of a review; `text` is only shown as complete when `status` is COMPLETE."""

    review = models.OneToOneField(Review, on_delete=models.CASCADE, related_name="draft")
    engine = models.CharField(max_length=16, choices=Engine.choices)
    status = models.CharField(max_length=16, choices=DraftStatus.choices)
    text = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)
    flags = models.JSONField(default=list, blank=True)
    error = models.CharField(max_length=200, blank=True)
    ttft_ms = models.FloatField(null=True, blank=True)
    # Times the sweeper queued it again after it stalled (reviews.sweeper).
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Draft of {self.review}"


class VerificationStatus(models.TextChoices):
    QUEUED = "QUEUED", _("Queued")
    DONE = "DONE", _("Done")


class Verification(models.Model):
    """The L2 check of one PENDING passage, served at /api/verifications/<id>/."""

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="verifications")
    passage = models.OneToOneField(Passage, on_delete=models.CASCADE, related_name="verification")
    rule_ids = models.JSONField(default=list)
    engine = models.CharField(max_length=16, choices=Engine.choices)
    status = models.CharField(
        max_length=8, choices=VerificationStatus.choices, default=VerificationStatus.QUEUED
    )
    outcome = models.CharField(max_length=24, choices=PassageState.choices, blank=True)
    risk = models.CharField(max_length=10, blank=True)
    rationale = models.TextField(blank=True)
    quote = models.TextField(blank=True)
    redline = models.TextField(blank=True)
    question = models.TextField(blank=True)
    reason = models.CharField(max_length=40, blank=True)
    model = models.CharField(max_length=100, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    # When the sweeper last queued it again (reviews.sweeper); null: only the first time.
    requeued_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["passage__index"]

    def __str__(self) -> str:
        return f"Verification of {self.passage}"


class ModelCall(models.Model):
    """Every model call: what it was for, its usage, latency and estimated cost."""

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="model_calls")
    purpose = models.CharField(max_length=16)  # draft | verify
    model = models.CharField(max_length=100)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cache_read_input_tokens = models.PositiveIntegerField(default=0)
    cache_creation_input_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0)
    ttft_ms = models.FloatField(null=True, blank=True)
    outcome = models.CharField(max_length=40)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.purpose} call of {self.review}"


class ReviewSnapshot(models.Model):
    """A review's register as it stood before a re-run on a newer playbook, kept to compare.

    ``passages`` holds one entry per passage: ``index``, ``state``, ``text_sha`` (so a later
    run can tell whether the words changed), ``flags`` ({category: worst severity}),
    ``rule_ids`` and ``decided`` (a lawyer set its state). ``key_facts`` is the draft's facts.
    """

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="snapshots")
    playbook_version = models.ForeignKey(
        PlaybookVersion, on_delete=models.PROTECT, related_name="+"
    )
    playbook_label = models.CharField(max_length=200)
    router_version = models.CharField(max_length=120, blank=True, default="")
    # The second-stage check the scan ran with ("" when the playbook has it off or none ships).
    check_version = models.CharField(max_length=120, blank=True, default="")
    engine = models.CharField(max_length=16)
    status = models.CharField(max_length=16, choices=ReviewStatus.choices)
    passages = models.JSONField(default=list)
    key_facts = models.JSONField(default=dict, blank=True)
    # The version the re-run moved to, filled in when it has run (empty: it did not finish).
    rerun_playbook_label = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Snapshot {self.pk} of {self.review} ({self.playbook_label})"


# Message Batches of bulk uploads (reviews.batches).
from reviewapp.reviews.batches.models import ModelBatch, ModelBatchRequest  # noqa: E402, F401

# Redlines a lawyer accepts into the review (reviews.redlines).
from reviewapp.reviews.redlines.models import Redline, RedlineStatus  # noqa: E402, F401
