"""Work that stopped moving is queued again, and after a few tries ends where a user sees it.

Run by beat (``sweep-stalled-work``) and once when a worker starts. A worker that died, a
broker that was down when work was queued, or a message that got lost leaves a row in a
non-final state; the sweep finds rows that have not moved for ``SWEEP_STALLED_AFTER_S``:

- contracts queued, ingesting, or ingested but never scanned: ingested (or scanned) again,
  after ``SWEEP_MAX_ATTEMPTS`` PARSE_FAILED;
- drafts queued or streaming: drafted again, then FAILED;
- verifications queued: checked again, then NEEDS_HUMAN_REVIEW (reason WORK_STALLED), never
  CONFIRMED.

Work a Message Batch owns (``reviews.model_batches``) is not stalled, however long it waits:
the batch's own poll lands it or ends it.

Each row is claimed with a conditional update of its timestamp, so two sweeps at once queue it
once, and a second sweep right after the first changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from reviewapp.contracts.services import contracts_requeue_stalled
from reviewapp.reviews.drafting import draft_give_up
from reviewapp.reviews.model_batches import batch_owned_reviews
from reviewapp.reviews.model_work import (
    draft_requeue,
    verifications_give_up,
    verifications_requeue,
)
from reviewapp.reviews.models import Draft, DraftStatus, Review, Verification, VerificationStatus
from reviewapp.reviews.reasons import WORK_STALLED

logger = logging.getLogger(__name__)

DRAFT_STALLED = "STALLED"
UNFINISHED_DRAFTS = (DraftStatus.QUEUED, DraftStatus.STREAMING)


@dataclass
class SweepResult:
    contracts_requeued: list[int] = field(default_factory=list)
    drafts_requeued: list[int] = field(default_factory=list)
    drafts_failed: list[int] = field(default_factory=list)
    verifications_requeued: list[int] = field(default_factory=list)
    verifications_given_up: list[int] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(len(ids) for ids in vars(self).values())


def stalled_work_sweep(
    *, older_than_s: int | None = None, max_attempts: int | None = None
) -> SweepResult:
    older_than_s = older_than_s or settings.SWEEP_STALLED_AFTER_S
    max_attempts = max_attempts or settings.SWEEP_MAX_ATTEMPTS
    cutoff = timezone.now() - timedelta(seconds=older_than_s)
    result = SweepResult()
    result.contracts_requeued = contracts_requeue_stalled(
        older_than_s=older_than_s, max_attempts=max_attempts
    )
    _sweep_drafts(cutoff, max_attempts, result)
    _sweep_verifications(cutoff, max_attempts, result)
    if result.total:
        logger.warning("stalled work swept: %s", result)
    return result


def _sweep_drafts(cutoff: datetime, max_attempts: int, result: SweepResult) -> None:
    stalled = Draft.objects.filter(status__in=UNFINISHED_DRAFTS, updated_at__lt=cutoff).exclude(
        review_id__in=batch_owned_reviews()
    )
    for draft_id, review_id, attempts in stalled.values_list("pk", "review_id", "attempts"):
        claimed = Draft.objects.filter(
            pk=draft_id, status__in=UNFINISHED_DRAFTS, updated_at__lt=cutoff
        )
        if attempts >= max_attempts:
            if claimed.update(updated_at=timezone.now()):
                draft_give_up(review_id=review_id, error=DRAFT_STALLED)
                result.drafts_failed.append(draft_id)
        elif claimed.update(updated_at=timezone.now(), attempts=F("attempts") + 1):
            _try_to_queue(draft_requeue, review_id=review_id)
            result.drafts_requeued.append(draft_id)


def _stalled_verifications(cutoff: datetime) -> Q:
    return Q(status=VerificationStatus.QUEUED) & (
        Q(requeued_at__lt=cutoff) | Q(requeued_at__isnull=True, created_at__lt=cutoff)
    )


def _sweep_verifications(cutoff: datetime, max_attempts: int, result: SweepResult) -> None:
    stalled = Verification.objects.filter(_stalled_verifications(cutoff)).exclude(
        review_id__in=batch_owned_reviews()
    )
    by_review: dict[int, tuple[list[int], list[int]]] = {}
    for verification_id, review_id, attempts in stalled.values_list("pk", "review_id", "attempts"):
        claimed = Verification.objects.filter(_stalled_verifications(cutoff), pk=verification_id)
        again, give_up = by_review.setdefault(review_id, ([], []))
        if attempts >= max_attempts:
            if claimed.update(requeued_at=timezone.now()):
                give_up.append(verification_id)
        elif claimed.update(requeued_at=timezone.now(), attempts=F("attempts") + 1):
            again.append(verification_id)
    for review_id, (again, give_up) in by_review.items():
        if give_up:
            verifications_give_up(
                review_id=review_id,
                verification_ids=give_up,
                reason=WORK_STALLED,
                why=f"The check did not finish after {max_attempts} tries.",
            )
            result.verifications_given_up.extend(give_up)
        if again:
            review = Review.objects.get(pk=review_id)
            verifications = Verification.objects.filter(pk__in=again).select_related("passage")
            _try_to_queue(verifications_requeue, review=review, verifications=verifications)
            result.verifications_requeued.extend(again)


def _try_to_queue(send: Callable[..., object], **kwargs: object) -> None:
    """With the broker down the row keeps its count and waits for the next sweep."""
    try:
        send(**kwargs)
    except Exception:  # kombu/redis connection errors, OSError
        logger.warning("could not queue stalled work again", exc_info=True)
