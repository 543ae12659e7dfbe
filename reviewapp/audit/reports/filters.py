"""What a report covers: the admin's organisations, a period and optional narrowing filters."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta


@dataclass(frozen=True)
class ReportFilters:
    organisation_ids: tuple[int, ...]
    date_from: date
    date_to: date  # inclusive
    matter_id: int | None = None
    reviewer_id: int | None = None
    lawyer_id: int | None = None
    category: str = ""
    rule_id: str = ""
    engine: str = ""

    @property
    def start(self) -> datetime:
        return datetime.combine(self.date_from, time.min, tzinfo=UTC)

    @property
    def end(self) -> datetime:
        """Exclusive: midnight UTC after the last day."""
        return datetime.combine(self.date_to + timedelta(days=1), time.min, tzinfo=UTC)

    @property
    def narrows_passages(self) -> bool:
        return bool(self.category or self.rule_id or self.lawyer_id)

    @property
    def by_week(self) -> bool:
        return (self.date_to - self.date_from).days > 92
