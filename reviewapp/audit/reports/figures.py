"""The report's figures as plain values, with the rates derived from them in one place."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from reviewapp.audit.reports.filters import ReportFilters


def share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def percent(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


@dataclass(frozen=True)
class ReportChoices:
    matters: list[tuple[int, str]] = field(default_factory=list)
    reviewers: list[tuple[int, str]] = field(default_factory=list)
    lawyers: list[tuple[int, str]] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Turnaround:
    count: int
    p50: timedelta | None
    p95: timedelta | None


@dataclass(frozen=True)
class ReviewFigures:
    total: int
    complete: int
    blocked: int
    in_review: int
    turnaround: Turnaround


@dataclass(frozen=True)
class PassageFigures:
    scanned: int
    chars: int
    routed: int
    routed_chars: int
    human: int
    states: dict[str, int]

    @property
    def routed_share(self) -> float | None:
        return share(self.routed, self.scanned)

    @property
    def routed_char_share(self) -> float | None:
        return share(self.routed_chars, self.chars)

    @property
    def human_share(self) -> float | None:
        return share(self.human, self.scanned)


@dataclass(frozen=True)
class QueueFigures:
    total: int
    decided: int
    rejections_decided: int
    overturned: int
    model_rejections_decided: int
    model_overturned: int
    uncertain_decided: int
    uncertain_accepted: int
    decided_late: int
    open_overdue: int
    escalated: int
    turnaround: Turnaround

    @property
    def overturn_rate(self) -> float | None:
        return share(self.overturned, self.rejections_decided)

    @property
    def rule_rejections_decided(self) -> int:
        return self.rejections_decided - self.model_rejections_decided

    @property
    def rule_overturned(self) -> int:
        return self.overturned - self.model_overturned

    @property
    def sla_breaches(self) -> int:
        return self.decided_late + self.open_overdue


@dataclass(frozen=True)
class ModelUsage:
    purpose: str
    model: str
    calls: int
    input_tokens: int
    output_tokens: int
    cache_read: int
    cache_write: int
    cost_usd: Decimal


@dataclass(frozen=True)
class RuleRow:
    rule_id: str
    category: str
    hits: int
    confirmed: int
    rejected: int
    open: int
    human: int

    @property
    def noise(self) -> float | None:
        """Of the hits whose passage is settled (CONFIRMED or REJECTED), the share that ended
        CONFIRMED: the rule fired on a fine passage. Hits still open are not counted either
        way, so a rule whose hits mostly wait for a lawyer is not shown as quiet."""
        return share(self.confirmed, self.confirmed + self.rejected)

    @property
    def noise_percent(self) -> str:
        return percent(self.noise)


@dataclass(frozen=True)
class Report:
    filters: ReportFilters
    reviews: ReviewFigures
    passages: PassageFigures
    verifications: dict[str, int]
    queue: QueueFigures
    model_usage: list[ModelUsage]
    rules: list[RuleRow]
    series: list[tuple[date, int]]

    @property
    def model_totals(self) -> ModelUsage:
        usage = self.model_usage
        return ModelUsage(
            purpose="",
            model="",
            calls=sum(u.calls for u in usage),
            input_tokens=sum(u.input_tokens for u in usage),
            output_tokens=sum(u.output_tokens for u in usage),
            cache_read=sum(u.cache_read for u in usage),
            cache_write=sum(u.cache_write for u in usage),
            cost_usd=sum((u.cost_usd for u in usage), Decimal(0)),
        )

    @property
    def categories(self) -> list[tuple[str, int]]:
        hits: dict[str, int] = {}
        for row in self.rules:
            hits[row.category] = hits.get(row.category, 0) + row.hits
        return sorted(hits.items(), key=lambda pair: (-pair[1], pair[0]))
