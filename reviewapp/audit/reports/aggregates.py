"""Percentiles in the database: PERCENTILE_CONT on PostgreSQL, an exact fallback elsewhere."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.db import connection
from django.db.models import Aggregate, DurationField, Expression, QuerySet


class PercentileCont(Aggregate):
    """PostgreSQL's ordered-set aggregate: the continuous percentile of an interval."""

    function = "PERCENTILE_CONT"
    name = "PercentileCont"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    allow_distinct = False

    def __init__(self, expression: Expression | str, fraction: float, **extra: Any) -> None:
        # The fraction is ours (0.5, 0.95), never user input: safe to inline.
        super().__init__(
            expression, fraction=repr(float(fraction)), output_field=DurationField(), **extra
        )


def database_has_percentiles() -> bool:
    return connection.vendor == "postgresql"


def percentile_cont(values: list[timedelta], fraction: float) -> timedelta | None:
    """The same interpolation as PERCENTILE_CONT, over already sorted values."""
    if not values:
        return None
    position = fraction * (len(values) - 1)
    lower = int(position)
    upper = min(lower + 1, len(values) - 1)
    return values[lower] + (values[upper] - values[lower]) * (position - lower)


def percentiles_from_rows(
    queryset: QuerySet, *, end: str, start: str, fractions: Iterable[float]
) -> list[timedelta | None]:
    """Fallback for databases without PERCENTILE_CONT: one query, sorted in Python."""
    durations = sorted(
        finished - started
        for finished, started in queryset.values_list(end, start)
        if finished is not None and started is not None
    )
    return [percentile_cont(durations, fraction) for fraction in fractions]
