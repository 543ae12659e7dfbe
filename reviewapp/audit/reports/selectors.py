"""The admins' report: every figure is a database aggregate over the business tables.

One population drives every figure: the reviews (trigger scans) that started in the period, in
the admin's organisations, narrowed by matter, reviewer (who uploaded) and engine. Category, rule
and lawyer narrow to passages (a firing of that category/rule; an item that lawyer claimed or
decided) and to the reviews that have such a passage. The number of queries does not depend on
the number of rows.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import BooleanField, Case, Count, F, Max, Q, QuerySet, Sum, When
from django.db.models.functions import TruncDate, TruncWeek
from django.utils import timezone

from reviewapp.audit.reports.aggregates import (
    PercentileCont,
    database_has_percentiles,
    percentiles_from_rows,
)
from reviewapp.audit.reports.figures import (
    ModelUsage,
    PassageFigures,
    QueueFigures,
    Report,
    ReviewFigures,
    RuleRow,
    Turnaround,
)
from reviewapp.audit.reports.filters import ReportFilters
from reviewapp.contracts.models import PassageState
from reviewapp.queue.models import Decision, ItemStatus, QueueItem
from reviewapp.reviews.models import ModelCall, Review, ReviewStatus, RuleFiring, Verification

__all__ = ["report_build"]

FRACTIONS = (0.5, 0.95)
CENT_FRACTION = Decimal("0.000001")  # ModelCall.cost_usd has six decimal places
OPEN_STATES = (PassageState.PENDING, PassageState.NEEDS_HUMAN_REVIEW)


def report_build(*, filters: ReportFilters, now: datetime | None = None) -> Report:
    """The whole report in one read-only transaction (a fixed number of queries)."""
    with transaction.atomic():
        _aggregate_in_memory()
        return _report(filters, now)


def _aggregate_in_memory() -> None:
    # A year of a large firm groups a few hundred thousand firings: with PostgreSQL's default
    # work_mem the grouping sorts on disk; with more it hashes in memory, twice as fast.
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('work_mem', %s, true)", [settings.REPORTS_WORK_MEM])


def _report(filters: ReportFilters, now: datetime | None) -> Report:
    reviews = _reviews(filters)
    firings = _firing_groups(filters, reviews)
    return Report(
        filters=filters,
        reviews=_review_figures(reviews),
        passages=_passage_figures(filters, reviews, firings),
        verifications=_verification_outcomes(filters, reviews),
        queue=_queue_figures(filters, reviews, now or timezone.now()),
        model_usage=_model_usage(reviews),
        rules=_rule_rows(firings),
        series=_series(filters, reviews),
    )


def _reviews(f: ReportFilters) -> QuerySet[Review]:
    reviews = Review.objects.filter(
        contract__matter__organisation_id__in=f.organisation_ids,
        created_at__gte=f.start,
        created_at__lt=f.end,
    )
    if f.matter_id:
        reviews = reviews.filter(contract__matter_id=f.matter_id)
    if f.reviewer_id:
        reviews = reviews.filter(contract__uploaded_by_id=f.reviewer_id)
    if f.engine:
        reviews = reviews.filter(engine=f.engine)
    if f.category or f.rule_id:
        firings = _firings(f)
        if f.lawyer_id:
            firings = firings.filter(passage_id__in=_items(f).values("passage_id"))
        reviews = reviews.filter(pk__in=firings.values("review_id"))
    elif f.lawyer_id:
        reviews = reviews.filter(pk__in=_items(f).values("review_id"))
    return reviews


def _firings(f: ReportFilters) -> QuerySet[RuleFiring]:
    firings = RuleFiring.objects.all()
    if f.category:
        firings = firings.filter(category=f.category)
    if f.rule_id:
        firings = firings.filter(rule_id=f.rule_id)
    return firings


def _items(f: ReportFilters) -> QuerySet[QueueItem]:
    if not f.lawyer_id:
        return QueueItem.objects.all()
    return QueueItem.objects.filter(Q(claimed_by_id=f.lawyer_id) | Q(decided_by_id=f.lawyer_id))


def _passage_match(f: ReportFilters, reviews: QuerySet[Review], passage_id: str) -> Q:
    """Passages the category/rule/lawyer filters keep; `passage_id` names the passage id.

    Uncorrelated IN subqueries, never per-row EXISTS: the database hashes them once.
    """
    match = Q()
    if f.category or f.rule_id:
        fired = _firings(f).filter(review__in=reviews).values("passage_id")
        match &= Q(**{f"{passage_id}__in": fired})
    if f.lawyer_id:
        handled = _items(f).filter(review__in=reviews).values("passage_id")
        match &= Q(**{f"{passage_id}__in": handled})
    return match


# -- figures ----------------------------------------------------------------------------------


def _review_figures(reviews: QuerySet[Review]) -> ReviewFigures:
    completed = Q(status=ReviewStatus.COMPLETE, completed_at__isnull=False)
    duration = F("completed_at") - F("contract__created_at")
    extra = _percentile_aggregates(duration, completed) if database_has_percentiles() else {}
    row = reviews.aggregate(
        total=Count("pk"),
        complete=Count("pk", filter=Q(status=ReviewStatus.COMPLETE)),
        blocked=Count("pk", filter=Q(status=ReviewStatus.BLOCKED)),
        in_review=Count("pk", filter=Q(status=ReviewStatus.IN_REVIEW)),
        completed=Count("pk", filter=completed),
        **extra,
    )
    turnaround = _turnaround(
        row, reviews.filter(completed), end="completed_at", start="contract__created_at"
    )
    return ReviewFigures(
        total=row["total"],
        complete=row["complete"],
        blocked=row["blocked"],
        in_review=row["in_review"],
        turnaround=turnaround,
    )


def _percentile_aggregates(duration: Any, only: Q) -> dict[str, PercentileCont]:
    return {f"p{round(fr * 100)}": PercentileCont(duration, fr, filter=only) for fr in FRACTIONS}


def _turnaround(row: dict, rows: QuerySet, *, end: str, start: str) -> Turnaround:
    count = row["completed"]
    if database_has_percentiles():
        return Turnaround(count=count, p50=row["p50"], p95=row["p95"])
    p50, p95 = percentiles_from_rows(rows, end=end, start=start, fractions=FRACTIONS)
    return Turnaround(count=count, p50=p50, p95=p95)


def _passage_figures(
    f: ReportFilters, reviews: QuerySet[Review], firings: list[dict]
) -> PassageFigures:
    """Totals come from the reviews (set by the scan); flagged passages from their firings,
    which carry the passage's state and length: no passage is read."""
    totals = reviews.aggregate(scanned=Sum("passage_count"), chars=Sum("char_count"))
    scanned, chars = totals["scanned"] or 0, totals["chars"] or 0
    row = _narrowed_flagged(f, reviews) if f.narrows_passages else _flagged(firings)
    states = {state: row[state.lower()] for state in PassageState.values}
    if not f.narrows_passages:  # a passage no rule flagged stays CONFIRMED from the scan on
        states[PassageState.CONFIRMED] += scanned - row["routed"]
    return PassageFigures(
        scanned=scanned,
        chars=chars,
        routed=row["routed"],
        routed_chars=row["routed_chars"] or 0,
        human=row["human"] or 0,
        states=states,
    )


def _flagged(firings: list[dict]) -> dict[str, int]:
    """Flagged passages from the firing groups: one firing per passage is its first."""
    firsts = [group for group in firings if group["passage_first"]]
    row = {state.lower(): 0 for state in PassageState.values}
    for group in firsts:
        if group["passage_state"] in PassageState.values:
            row[group["passage_state"].lower()] += group["hits"]
    return row | {
        "routed": sum(group["hits"] for group in firsts),
        "routed_chars": sum(group["chars"] or 0 for group in firsts),
        "human": sum(group["hits"] for group in firsts if group["reached_lawyer"]),
    }


def _narrowed_flagged(f: ReportFilters, reviews: QuerySet[Review]) -> dict[str, int]:
    """With a category, rule or lawyer filter some firings of a passage drop out (maybe its
    first): group the kept firings by passage instead."""
    lawyer = Q(passage_id__in=_items(f).filter(review__in=reviews).values("passage_id"))
    flagged = (
        _firings(f)
        .filter(review__in=reviews)
        .values("passage_id")
        .annotate(
            final_state=Max("passage_state"),
            length=Max("passage_chars"),
            reached_lawyer=Max(Case(When(lawyer, then=1), default=0)),
        )
        .order_by()
    )
    kept = Q(reached_lawyer=1) if f.lawyer_id else Q()
    return flagged.aggregate(
        routed=Count("passage_id"),
        routed_chars=Sum("length"),
        human=Sum("reached_lawyer"),
        **{
            s.lower(): Count("passage_id", filter=Q(final_state=s) & kept)
            for s in PassageState.values
        },
    )


def _verification_outcomes(f: ReportFilters, reviews: QuerySet[Review]) -> dict[str, int]:
    rows = (
        Verification.objects.filter(review__in=reviews)
        .filter(_passage_match(f, reviews, "passage_id"))
        .values("status", "outcome")
        .annotate(n=Count("pk"))
        .order_by()
    )
    outcomes: dict[str, int] = {}
    for row in rows:
        key = row["outcome"] if row["status"] == "DONE" and row["outcome"] else "QUEUED"
        outcomes[key] = outcomes.get(key, 0) + row["n"]
    return outcomes


def _queue_figures(f: ReportFilters, reviews: QuerySet[Review], now: datetime) -> QueueFigures:
    items = _items(f).filter(review__in=reviews).filter(_passage_match(f, reviews, "passage_id"))
    done = Q(status=ItemStatus.DONE)
    machine_rejected = done & Q(state=PassageState.REJECTED)
    model_rejected = Verification.objects.filter(review__in=reviews, outcome=PassageState.REJECTED)
    by_model = Q(passage_id__in=model_rejected.values("passage_id"))
    accepted = Q(decision=Decision.ACCEPT)
    duration = F("decided_at") - F("created_at")
    extra = _percentile_aggregates(duration, done) if database_has_percentiles() else {}
    row = items.aggregate(
        total=Count("pk"),
        completed=Count("pk", filter=done),
        rejections_decided=Count("pk", filter=machine_rejected),
        overturned=Count("pk", filter=machine_rejected & accepted),
        model_rejections_decided=Count("pk", filter=machine_rejected & by_model),
        model_overturned=Count("pk", filter=machine_rejected & by_model & accepted),
        uncertain_decided=Count("pk", filter=done & Q(state=PassageState.NEEDS_HUMAN_REVIEW)),
        uncertain_accepted=Count(
            "pk", filter=done & Q(state=PassageState.NEEDS_HUMAN_REVIEW) & accepted
        ),
        decided_late=Count("pk", filter=done & Q(decided_at__gt=F("due_at"))),
        open_overdue=Count("pk", filter=~done & Q(due_at__lt=now)),
        escalated=Count("pk", filter=Q(escalated_at__isnull=False)),
        **extra,
    )
    turnaround = _turnaround(row, items.filter(done), end="decided_at", start="created_at")
    counts = {key: value for key, value in row.items() if key not in ("p50", "p95")}
    counts["decided"] = counts.pop("completed")
    return QueueFigures(**counts, turnaround=turnaround)


def _model_usage(reviews: QuerySet[Review]) -> list[ModelUsage]:
    rows = (
        ModelCall.objects.filter(review__in=reviews)
        .values("purpose", "model")
        .annotate(
            calls=Count("pk"),
            input_tokens=Sum("input_tokens"),
            output_tokens=Sum("output_tokens"),
            cache_read=Sum("cache_read_input_tokens"),
            cache_write=Sum("cache_creation_input_tokens"),
            cost_usd=Sum("cost_usd"),
        )
        .order_by("purpose", "model")
    )
    return [
        ModelUsage(
            purpose=row["purpose"],
            model=row["model"],
            calls=row["calls"],
            input_tokens=row["input_tokens"] or 0,
            output_tokens=row["output_tokens"] or 0,
            cache_read=row["cache_read"] or 0,
            cache_write=row["cache_write"] or 0,
            cost_usd=_usd(row["cost_usd"]),
        )
        for row in rows
    ]


def _usd(value: Decimal | None) -> Decimal:
    return Decimal(value or 0).quantize(CENT_FRACTION)


def _firing_groups(f: ReportFilters, reviews: QuerySet[Review]) -> list[dict]:
    """One pass over the period's firings, grouped by rule and by how the passage ended; the
    firings carry their passage's state and length, so no passage is joined."""
    firings = _firings(f).filter(review__in=reviews)
    if f.lawyer_id:
        firings = firings.filter(passage_id__in=_items(f).values("passage_id"))
    items = QueueItem.objects.filter(review__in=reviews)
    handled = _items(f).filter(review__in=reviews)
    decided = items.filter(status=ItemStatus.DONE)
    groups: Any = (
        firings.values("rule_id", "category", "passage_state", "passage_first")
        .annotate(
            reached_lawyer=_flag(Q(passage_id__in=handled.values("passage_id"))),
            decided=_flag(Q(passage_id__in=decided.values("passage_id"))),
        )
        .values(
            "rule_id",
            "category",
            "passage_state",
            "passage_first",
            "reached_lawyer",
            "decided",
        )
        .annotate(hits=Count("pk"), chars=Sum("passage_chars"))
        .order_by()
    )
    return list(groups)


def _flag(condition: Q) -> Case:
    return Case(When(condition, then=True), default=False, output_field=BooleanField())


def _rule_rows(firings: list[dict]) -> list[RuleRow]:
    rows: dict[tuple[str, str], dict[str, int]] = {}
    for group in firings:
        key = (group["rule_id"], group["category"])
        row = rows.setdefault(
            key, dict.fromkeys(("hits", "confirmed", "rejected", "open", "human"), 0)
        )
        hits, state = group["hits"], group["passage_state"]
        row["hits"] += hits
        row["confirmed"] += hits if state == PassageState.CONFIRMED else 0
        row["rejected"] += hits if state == PassageState.REJECTED else 0
        row["open"] += hits if state in OPEN_STATES else 0
        row["human"] += hits if group["decided"] else 0
    ordered = sorted(rows.items(), key=lambda pair: (-pair[1]["hits"], pair[0][0]))
    return [
        RuleRow(rule_id=rule_id, category=category, **row) for (rule_id, category), row in ordered
    ]


def _series(f: ReportFilters, reviews: QuerySet[Review]) -> list[tuple[date, int]]:
    trunc = TruncWeek("created_at") if f.by_week else TruncDate("created_at")
    rows = reviews.annotate(bucket=trunc).values("bucket").annotate(n=Count("pk")).order_by()
    counts = {_as_date(row["bucket"]): row["n"] for row in rows}
    return [(day, counts.get(day, 0)) for day in _buckets(f)]


def _as_date(value: date | datetime) -> date:
    return value.date() if isinstance(value, datetime) else value


def _buckets(f: ReportFilters) -> list[date]:
    step = timedelta(days=7 if f.by_week else 1)
    day = f.date_from - timedelta(days=f.date_from.weekday()) if f.by_week else f.date_from
    buckets = []
    while day <= f.date_to:
        buckets.append(day)
        day += step
    return buckets
