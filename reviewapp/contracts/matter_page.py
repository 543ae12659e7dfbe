"""What the matter page shows: contract rows, bulk-upload batches, one set of status words.

The rows are rendered by one template for the first load and for every live refresh
(``_contract_rows.html``), so a status reads the same before and after a reload, in the same
order (newest first, then by id). Counts come from one query for all rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, F, Q, QuerySet

from reviewapp.accounts.models import Matter
from reviewapp.accounts.selectors import AnyUser
from reviewapp.contracts.deletion import contract_ids_deletable
from reviewapp.contracts.intake.progress import IntakeProgress, intake_progress
from reviewapp.contracts.intake.selectors import intake_batches_shown
from reviewapp.contracts.intake.serializers import failure_text
from reviewapp.contracts.models import Contract, DocumentStatus

# The words of a document's status, on the page and in its script (live updates).
STATUS_WORDS = dict(DocumentStatus.choices)
# Queue items a lawyer still has to decide (queue.models.ItemStatus OPEN and CLAIMED).
_OPEN_ITEM_STATUSES = ("OPEN", "CLAIMED")


def status_words() -> dict[str, str]:
    return {status: str(words) for status, words in STATUS_WORDS.items()}


def matter_contract_rows(*, matter: Matter) -> QuerySet[Contract]:
    """Every contract of the matter with its counts and review status, in one query."""
    open_items = Count(
        "passages__queue_items",
        filter=Q(passages__queue_items__status__in=_OPEN_ITEM_STATUSES),
        distinct=True,
    )
    return (
        Contract.objects.filter(matter=matter)
        .defer("text", "page_spans", "timings_ms")
        .annotate(
            passage_count=Count("passages", distinct=True),
            open_items=open_items,
            review_status=F("review__status"),
        )
        .order_by("-created_at", "-id")
    )


@dataclass
class BatchView:
    progress: IntakeProgress
    failures: list[dict[str, Any]]


def matter_batches(*, matter: Matter) -> list[BatchView]:
    views = []
    for batch in intake_batches_shown(matter_id=matter.pk):
        progress = intake_progress(batch=batch)
        failures = [{**item, "text": failure_text(item)} for item in progress.failures]
        views.append(BatchView(progress=progress, failures=failures))
    return views


def matter_rows_context(*, user: AnyUser, matter: Matter) -> dict[str, Any]:
    """The contract table: rows, deletable ids and the files of uploads that did not finish."""
    batches = matter_batches(matter=matter)
    unfinished = [
        {"batch": view.progress.batch, **entry}
        for view in batches
        if view.progress.stalled
        for entry in view.progress.missing
    ]
    return {
        "matter": matter,
        "contracts": matter_contract_rows(matter=matter),
        "deletable": set()
        if matter.legal_hold
        else contract_ids_deletable(user=user, matter=matter),
        "status_words": status_words(),
        "unfinished": unfinished,
        "batches": batches,
    }
