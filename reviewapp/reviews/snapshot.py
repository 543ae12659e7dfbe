"""A review's state register as a snapshot, cached in Redis under `state:{review_id}` (300 s).

The database is the source of truth: the cached copy carries the review's ``updated_at`` and is
only served while it matches, and Redis being away never fails a request."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

import redis
from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from reviewapp.contracts.models import PassageState
from reviewapp.redis_pool import redis_client
from reviewapp.reviews.models import Review

SNAPSHOT_TTL_S = 300

logger = logging.getLogger(__name__)


def snapshot_key(review_id: int) -> str:
    return f"state:{review_id}"


def snapshot_build(review: Review) -> dict[str, Any]:
    passages = review.contract.passages.order_by("index").values_list("index", "state")
    counts = dict.fromkeys(PassageState.values, 0)
    rows = review.contract.passages.values("state").annotate(n=Count("id"))
    counts.update({row["state"]: row["n"] for row in rows if row["state"]})
    return {
        "review_id": review.pk,
        "contract_id": review.contract_id,
        "status": review.status,
        "playbook_version": review.playbook_version.label,
        "counts": counts,
        "passages": [{"index": index, "state": state} for index, state in passages],
    }


def snapshot_refresh(review: Review) -> dict[str, Any]:
    """Rebuild the snapshot and cache it. With Redis away the caller is not failed (the state
    is committed); the review's ``updated_at`` is moved on instead, so the copy Redis still holds
    (its file outlives a restart) no longer matches and is rebuilt on the next read."""
    snapshot = snapshot_build(review)
    if settings.REDIS_URL:
        cached = {"stamp": _stamp(review.pk), "snapshot": snapshot}
        try:
            redis_client().set(snapshot_key(review.pk), json.dumps(cached), ex=SNAPSHOT_TTL_S)
        except redis.RedisError:
            logger.warning("state snapshot of review %s not cached: Redis is away", review.pk)
            Review.objects.filter(pk=review.pk).update(updated_at=timezone.now())
    return snapshot


def snapshot_get(review: Review) -> dict[str, Any]:
    """The cached snapshot while it matches the review, else rebuilt from the database."""
    if not settings.REDIS_URL:
        return snapshot_build(review)
    try:
        raw = redis_client().get(snapshot_key(review.pk))
    except redis.RedisError:
        return snapshot_build(review)
    cached = json.loads(raw) if raw is not None else {}
    if cached.get("stamp") == _iso(review.updated_at):
        return cached["snapshot"]
    return snapshot_refresh(review)


def _stamp(review_id: int) -> str:
    updated = Review.objects.filter(pk=review_id).values_list("updated_at", flat=True).first()
    return _iso(updated)


def _iso(moment: datetime | None) -> str:
    return moment.isoformat() if moment else ""
