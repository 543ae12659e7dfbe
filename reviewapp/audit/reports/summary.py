"""The report's figures as labelled rows, so the page, the CSV and the PDF say the same thing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.utils.translation import gettext as _

from reviewapp.audit.reports.figures import (
    PassageFigures,
    QueueFigures,
    Report,
    ReportChoices,
    Turnaround,
    percent,
)
from reviewapp.contracts.models import PassageState
from reviewapp.rules.display_labels import state_label

Raw = int | float | Decimal | str | None


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    value: Raw  # machine-readable: counts, shares 0..1, seconds, USD
    display: str


@dataclass(frozen=True)
class Section:
    title: str
    figures: list[Figure]


def duration(value: timedelta | None) -> str:
    if value is None:
        return "–"
    seconds = value.total_seconds()
    if seconds < 90:  # an offline review completes in seconds: "0 min" would say nothing
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"


def _count(key: str, label: str, value: int) -> Figure:
    return Figure(key, label, value, f"{value:,}")


def _share(key: str, label: str, part: int, whole: int, value: float | None) -> Figure:
    return Figure(key, label, None if value is None else round(value, 4), _of(value, part, whole))


def _of(value: float | None, part: int, whole: int) -> str:
    return f"{percent(value)} ({part:,} / {whole:,})"


def _times(key: str, label: str, turnaround: Turnaround) -> list[Figure]:
    return [
        Figure(f"{key}_p50_s", f"{label}, p50", _seconds(turnaround.p50), duration(turnaround.p50)),
        Figure(f"{key}_p95_s", f"{label}, p95", _seconds(turnaround.p95), duration(turnaround.p95)),
    ]


def _seconds(value: timedelta | None) -> float | None:
    return None if value is None else round(value.total_seconds(), 1)


def report_summary(report: Report) -> list[Section]:
    return [
        _contracts(report),
        _passages(report.passages),
        _verifications(report.verifications),
        _queue(report.queue),
        _model(report),
    ]


def _contracts(report: Report) -> Section:
    r = report.reviews
    return Section(
        _("Contracts"),
        [
            _count("contracts_reviewed", _("Contracts reviewed"), r.total),
            _count("contracts_complete", _("Complete"), r.complete),
            _count("contracts_blocked", _("Blocked"), r.blocked),
            _count("contracts_in_review", _("In review"), r.in_review),
            *_times("review_turnaround", _("Upload to review complete"), r.turnaround),
        ],
    )


def _passages(p: PassageFigures) -> Section:
    states = [
        _count(
            f"passages_{state.lower()}",
            _("Now %(state)s") % {"state": state_label(state)},
            p.states[state],
        )
        for state in PassageState.values
    ]
    return Section(
        _("Passages"),
        [
            _count("passages_scanned", _("Passages scanned"), p.scanned),
            _share(
                "routed_share_passages",
                _("Routed share (passages a rule flagged)"),
                p.routed,
                p.scanned,
                p.routed_share,
            ),
            _share(
                "routed_share_characters",
                _("Routed share (characters in flagged passages)"),
                p.routed_chars,
                p.chars,
                p.routed_char_share,
            ),
            _share(
                "human_share",
                _("Reached a lawyer (passages with a queue item)"),
                p.human,
                p.scanned,
                p.human_share,
            ),
            *states,
        ],
    )


def _verifications(outcomes: dict[str, int]) -> Section:
    keys = [*PassageState.values, "QUEUED"]
    return Section(
        _("Verification outcomes"),
        [
            _count(
                f"verifications_{key.lower()}",
                _("Still queued") if key == "QUEUED" else state_label(key),
                outcomes.get(key, 0),
            )
            for key in keys
            if key != PassageState.PENDING
        ],
    )


def _queue(q: QueueFigures) -> Section:
    return Section(
        _("Lawyers' queue"),
        [
            _count("queue_items", _("Queue items"), q.total),
            _count("queue_decided", _("Decided"), q.decided),
            _share(
                "overturn_rate",
                _("Overturn rate (rejections a lawyer accepted)"),
                q.overturned,
                q.rejections_decided,
                q.overturn_rate,
            ),
            Figure(
                "overturned_rule",
                _("Overturned rule rejections"),
                q.rule_overturned,
                f"{q.rule_overturned:,} / {q.rule_rejections_decided:,}",
            ),
            Figure(
                "overturned_model",
                _("Overturned verifier rejections"),
                q.model_overturned,
                f"{q.model_overturned:,} / {q.model_rejections_decided:,}",
            ),
            Figure(
                "uncertain_accepted",
                _("Uncertain passages a lawyer accepted"),
                q.uncertain_accepted,
                f"{q.uncertain_accepted:,} / {q.uncertain_decided:,}",
            ),
            *_times("queue_turnaround", _("Queue item to decision"), q.turnaround),
            _count("sla_breaches", _("SLA breaches"), q.sla_breaches),
            _count("sla_decided_late", _("Decided after the due time"), q.decided_late),
            _count("sla_open_overdue", _("Still open past the due time"), q.open_overdue),
            _count("escalated", _("Escalated"), q.escalated),
        ],
    )


def _model(report: Report) -> Section:
    t = report.model_totals
    return Section(
        _("Model usage"),
        [
            _count("model_calls", _("Model calls"), t.calls),
            _count("input_tokens", _("Input tokens"), t.input_tokens),
            _count("output_tokens", _("Output tokens"), t.output_tokens),
            _count("cache_read_tokens", _("Cache read tokens"), t.cache_read),
            _count("cache_write_tokens", _("Cache write tokens"), t.cache_write),
            Figure("cost_usd", _("Estimated cost (USD)"), t.cost_usd, f"${t.cost_usd:,.2f}"),
        ],
    )


def filter_lines(report: Report, choices: ReportChoices) -> list[tuple[str, str]]:
    """The filters in words, for the exports' headers."""
    f = report.filters
    names = {
        "matter": dict(choices.matters),
        "user": dict(choices.reviewers) | dict(choices.lawyers),
    }
    lines = [(_("Period"), f"{f.date_from.isoformat()} – {f.date_to.isoformat()} (UTC)")]
    optional = [
        (_("Matter"), names["matter"].get(f.matter_id or 0, "")),
        (_("Reviewer"), names["user"].get(f.reviewer_id or 0, "")),
        (_("Lawyer"), names["user"].get(f.lawyer_id or 0, "")),
        (_("Category"), f.category),
        (_("Rule"), f.rule_id),
        (_("Engine"), f.engine),
    ]
    return lines + [(label, value) for label, value in optional if value]
