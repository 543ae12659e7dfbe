"""A review's state register as a snapshot, cached in Redis under `state:{review_id}` (300 s)."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db.models import Count

from reviewapp.contracts.models import PassageState
from reviewapp.redis_pool import redis_client
from reviewapp.reviews.models import Review

SNAPSHOT_TTL_S = 300


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
    snapshot = snapshot_build(review)
    if settings.REDIS_URL:
        redis_client().set(snapshot_key(review.pk), json.dumps(snapshot), ex=SNAPSHOT_TTL_S)
    return snapshot


def snapshot_get(review: Review) -> dict[str, Any]:
    """The cached snapshot, rebuilt from the database when it expired."""
    if settings.REDIS_URL:
        cached = redis_client().get(snapshot_key(review.pk))
        if cached is not None:
            return json.loads(cached)
    return snapshot_refresh(review)
