"""Work that stopped moving is queued again, and after a few tries ends where a user sees it.

Run by beat (``sweep-stalled-work``) and once when a worker starts. First, messages held by
a worker that is gone go back to their queue (reviewapp.redelivery), which brings most lost
work back within seconds; what follows is for work whose message is lost altogether. A worker
that died, a broker that was down when work was queued, or a message that got lost leaves a row in a
non-final state; the sweep finds rows that have not moved for ``SWEEP_STALLED_AFTER_S``.
Rows that never started (queued) are only taken while their queue is empty: behind a long
backlog they are waiting their turn, not lost (reviewapp.broker); so are scans waiting in the
`ocr` queue. Started rows that stopped (ingesting, a draft streaming) are taken on time alone:

- contracts queued, ingesting, or ingested but never scanned: ingested (or scanned) again,
  after ``SWEEP_MAX_ATTEMPTS`` PARSE_FAILED;
- drafts queued or streaming: drafted again, then FAILED;
- verifications queued: checked again, then NEEDS_HUMAN_REVIEW (reason WORK_STALLED), never
  CONFIRMED.

Work a Message Batch owns (``reviews.batches``) is not stalled, however long it waits:
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

from reviewapp.broker import backlog
from reviewapp.celery import app
from reviewapp.contracts.services import contracts_requeue_stalled
from reviewapp.redelivery import orphans_restore
from reviewapp.reviews.batches.selectors import batch_owned_reviews
from reviewapp.reviews.dispatch import draft_requeue, verifications_requeue
from reviewapp.reviews.drafting import draft_give_up
from reviewapp.reviews.models import Draft, DraftStatus, Review, Verification, VerificationStatus
from reviewapp.reviews.reasons import WORK_STALLED
from reviewapp.reviews.verdicts import verifications_give_up

logger = logging.getLogger(__name__)

DRAFT_STALLED = "STALLED"
SWEEP_LIMIT = 500  # rows of each kind a sweep takes on, so one sweep stays short
INGEST_TASK = "reviewapp.contracts.tasks.ingest_contract"
OCR_TASK = "reviewapp.contracts.tasks.ocr_contract"
MODEL_TASK = "reviewapp.reviews.tasks.verify_batch"
UNFINISHED_DRAFTS = (DraftStatus.QUEUED, DraftStatus.STREAMING)


@dataclass
class SweepResult:
    contracts_requeued: list[int] = field(default_factory=list)
    drafts_requeued: list[int] = field(default_factory=list)
    drafts_failed: list[int] = field(default_factory=list)
    verifications_requeued: list[int] = field(default_factory=list)
    verifications_given_up: list[int] = field(default_factory=list)
    messages_restored: list[str] = field(default_factory=list)  # of workers that are gone

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
    result.messages_restored = orphans_restore(app)
    result.contracts_requeued = contracts_requeue_stalled(
        older_than_s=older_than_s,
        max_attempts=max_attempts,
        waiting_too=not backlog(INGEST_TASK),
        ocr_waiting_too=not backlog(OCR_TASK),
        limit=SWEEP_LIMIT,
    )
    model_backlog = backlog(MODEL_TASK)
    _sweep_drafts(cutoff, max_attempts, result, waiting_too=not model_backlog)
    if not model_backlog:  # a queued check has no "started" state: only lost once drained
        _sweep_verifications(cutoff, max_attempts, result)
    if result.total:
        logger.warning("stalled work swept: %s", result)
    return result


def _sweep_drafts(
    cutoff: datetime, max_attempts: int, result: SweepResult, *, waiting_too: bool
) -> None:
    statuses = UNFINISHED_DRAFTS if waiting_too else (DraftStatus.STREAMING,)
    stalled = Draft.objects.filter(status__in=statuses, updated_at__lt=cutoff)
    stalled = stalled.exclude(review_id__in=batch_owned_reviews()).order_by("pk")
    rows = stalled.values_list("pk", "review_id", "attempts")[:SWEEP_LIMIT]
    for draft_id, review_id, attempts in rows:
        claimed = Draft.objects.filter(pk=draft_id, status__in=statuses, updated_at__lt=cutoff)
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
    stalled = Verification.objects.filter(_stalled_verifications(cutoff))
    stalled = stalled.exclude(review_id__in=batch_owned_reviews()).order_by("pk")
    rows = list(stalled.values_list("pk", "attempts")[:SWEEP_LIMIT])
    spent = _claim_verifications([pk for pk, tries in rows if tries >= max_attempts], cutoff)
    again = _claim_verifications(
        [pk for pk, tries in rows if tries < max_attempts], cutoff, count=True
    )
    for review_id, ids in _by_review(spent).items():
        verifications_give_up(
            review_id=review_id,
            verification_ids=ids,
            reason=WORK_STALLED,
            why=f"The check did not finish after {max_attempts} tries.",
        )
        result.verifications_given_up.extend(ids)
    for review_id, ids in _by_review(again).items():
        review = Review.objects.get(pk=review_id)
        verifications = Verification.objects.filter(pk__in=ids).select_related("passage")
        _try_to_queue(verifications_requeue, review=review, verifications=verifications)
        result.verifications_requeued.extend(ids)


def _claim_verifications(
    ids: list[int], cutoff: datetime, *, count: bool = False
) -> list[tuple[int, int]]:
    """One conditional update for the lot; the rows it changed carry this sweep's marker, so a
    sweep running at the same time claims none of them again. Returns (id, review id) pairs."""
    if not ids:
        return []
    marker = timezone.now()
    changes: dict[str, object] = {"requeued_at": marker}
    if count:
        changes["attempts"] = F("attempts") + 1
    Verification.objects.filter(_stalled_verifications(cutoff), pk__in=ids).update(**changes)
    claimed = Verification.objects.filter(pk__in=ids, requeued_at=marker)
    return list(claimed.values_list("pk", "review_id"))


def _by_review(pairs: list[tuple[int, int]]) -> dict[int, list[int]]:
    grouped: dict[int, list[int]] = {}
    for verification_id, review_id in pairs:
        grouped.setdefault(review_id, []).append(verification_id)
    return grouped


def _try_to_queue(send: Callable[..., object], **kwargs: object) -> None:
    """With the broker down the row keeps its count and waits for the next sweep."""
    try:
        send(**kwargs)
    except Exception:  # kombu/redis connection errors, OSError
        logger.warning("could not queue stalled work again", exc_info=True)
