"""The tamper-evident audit log: append-only events, one hash chain per organisation."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

GENESIS_HASH = "0" * 64
SYSTEM_CHAIN = "system"


class AuditAction(models.TextChoices):
    CONTRACT_UPLOADED = "contract.uploaded", "Contract uploaded"
    PASSAGE_TRANSITION = "passage.transition", "Passage state changed"
    QUEUE_CLAIMED = "queue.claimed", "Queue item claimed"
    QUEUE_DECIDED = "queue.decided", "Queue item decided"
    QUEUE_OVERRIDDEN = "queue.overridden", "Rejection overridden"
    QUEUE_COMMENTED = "queue.commented", "Queue item commented"
    QUEUE_OPENED = "queue.opened", "Queue item opened"
    QUEUE_HANDED_OVER = "queue.handed_over", "Queue item handed over"
    QUEUE_MENTIONED = "queue.mentioned", "Lawyer mentioned"
    QUEUE_NOTE_EDITED = "queue.note_edited", "Decision note changed"
    QUEUE_ESCALATED = "queue.escalated", "Queue item escalated"
    QUEUE_UNDONE = "queue.undone", "Queue decision undone"
    QUEUE_SEVERITY_SET = "queue.severity_set", "Queue item severity set for the side acted for"
    QUEUE_ANSWERED = "queue.answered", "Queue item categories answered"
    QUEUE_RELEASED = "queue.released", "Queue item claim released"
    QUEUE_FLAGGED = "queue.flagged", "Clause flagged by a lawyer"
    PLAYBOOK_COPIED = "playbook.copied", "Playbook copied"
    PLAYBOOK_VERSION_CREATED = "playbook.version_created", "Playbook edited"
    PLAYBOOK_ACTIVATED = "playbook.activated", "Playbook activated"
    ROUTER_TRAINED = "router.trained", "Router retrained"
    ROUTER_ACTIVATED = "router.activated", "Router activated"
    CONTRACT_DELETED = "contract.deleted", "Contract deleted"
    RETENTION_SET = "matter.retention_set", "Retention period set"
    LEGAL_HOLD_SET = "matter.legal_hold_set", "Legal hold placed"
    LEGAL_HOLD_LIFTED = "matter.legal_hold_lifted", "Legal hold lifted"
    MATTER_ACTING_FOR_SET = "matter.acting_for_set", "Party acted for set (matter)"
    CONTRACT_ACTING_FOR_SET = "contract.acting_for_set", "Party acted for set (contract)"
    ORGANISATION_MEMBER_ADDED = "organisation.member_added", "Organisation member added"
    ORGANISATION_MEMBER_REMOVED = "organisation.member_removed", "Organisation member removed"
    SESSIONS_REVOKED = "auth.sessions_revoked", "Sessions and tokens revoked"
    AUDIT_CHECKPOINT = "audit.checkpoint", "Audit checkpoint written"
    MATTER_CREATED = "matter.created", "Matter created"
    MEMBER_ADDED = "matter.member_added", "Member added"
    MEMBER_ROLE_CHANGED = "matter.member_role_changed", "Member's role changed"
    MEMBER_REMOVED = "matter.member_removed", "Member removed"
    EXPORT_CREATED = "export.created", "Export created"
    REDLINE_SAVED = "redline.saved", "Redline saved"
    REDLINE_ACCEPTED = "redline.accepted", "Redline accepted"
    REDLINE_WITHDRAWN = "redline.withdrawn", "Redline withdrawn"
    REVIEW_RERUN = "review.rerun", "Review re-run on a newer playbook"
    MATTER_RERUN = "matter.rerun", "Matter re-run started"
    SIGNED_IN = "auth.signed_in", "Signed in"
    SIGN_IN_FAILED = "auth.sign_in_failed", "Sign-in failed"
    SIGNED_OUT = "auth.signed_out", "Signed out"
    ACCESS_DENIED = "access.denied", "Permission denied"
    WEBSOCKET_REFUSED = "access.websocket_refused", "Websocket refused"
    TWO_FACTOR_ENROLLED = "auth.two_factor_enrolled", "Two-factor sign-in set up"
    TWO_FACTOR_VERIFIED = "auth.two_factor_verified", "Second factor passed"
    TWO_FACTOR_FAILED = "auth.two_factor_failed", "Wrong second-factor code"
    TWO_FACTOR_RESET = "auth.two_factor_reset", "Two-factor sign-in reset"
    TWO_FACTOR_POLICY_SET = (
        "organisation.two_factor_policy_set",
        "Two-factor sign-in requirement changed",
    )
    TIME_ZONE_SET = "account.time_zone_set", "Time zone for due times chosen"


class AuditActorKind(models.TextChoices):
    # The first five match reviews.models.ActorKind, so passage transitions keep their actor.
    RULE = "rule", "Trigger rule"
    MODEL = "model", "Model"
    ENGINE = "engine", "Offline engine"
    USER = "user", "User"
    SYSTEM = "system", "System"
    ANONYMOUS = "anonymous", "Anonymous"


class HashKind(models.TextChoices):
    """How an event's hash was made. A chain may go from v1 to v2, never back."""

    SHA256 = "v1", "SHA-256 of the canonical JSON (events written before keyed hashes)"
    HMAC_SHA256 = "v2", "HMAC-SHA256 of the canonical JSON, keyed with AUDIT_HMAC_KEY"


class AuditChain(models.Model):
    """The head of one chain: locked by every writer, so each chain stays one line."""

    key = models.CharField(max_length=32, unique=True)  # "org:<id>" or "system"
    organisation = models.OneToOneField(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="audit_chain",
    )
    last_seq = models.PositiveBigIntegerField(default=0)
    last_hash = models.CharField(max_length=64, default=GENESIS_HASH)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.key} @ {self.last_seq}"


class AuditEvent(models.Model):
    """One thing that happened. References only (ids, rule ids, states, hashes), never text."""

    organisation = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,  # the unique (organisation, seq) index leads with it
    )
    seq = models.PositiveBigIntegerField()
    created_at = models.DateTimeField()
    action = models.CharField(max_length=40, choices=AuditAction.choices)
    actor_kind = models.CharField(max_length=16, choices=AuditActorKind.choices)
    actor = models.CharField(max_length=200, blank=True)
    target_type = models.CharField(max_length=40, blank=True)
    target_id = models.CharField(max_length=64, blank=True)
    data = models.JSONField(default=dict, blank=True)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)
    hash_kind = models.CharField(
        max_length=8, choices=HashKind.choices, db_default=HashKind.HMAC_SHA256
    )

    class Meta:
        ordering = ["organisation_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["organisation", "seq"], name="audit_event_org_seq"),
            models.UniqueConstraint(
                fields=["seq"],
                condition=Q(organisation__isnull=True),
                name="audit_event_system_seq",
            ),
        ]
        indexes = [
            models.Index(fields=["organisation", "created_at"], name="audit_event_org_created"),
            models.Index(fields=["action"], name="audit_event_action"),
        ]

    def __str__(self) -> str:
        chain = self.organisation_id or SYSTEM_CHAIN
        return f"{chain}#{self.seq} {self.action}"
