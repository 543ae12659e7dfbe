"""How bad a state or a severity is, worst first: one order for the grid, exports and re-runs."""

from __future__ import annotations

from reviewapp.contracts.models import PassageState
from reviewapp.rules.engine.model import SEVERITIES

STATE_RANK: tuple[str, ...] = (
    PassageState.REJECTED,
    PassageState.NEEDS_HUMAN_REVIEW,
    PassageState.PENDING,
    PassageState.CONFIRMED,
)
SEVERITY_RANK: tuple[str, ...] = tuple(reversed(SEVERITIES))  # critical first


def severity_rank(severity: str | None) -> int:
    return SEVERITY_RANK.index(severity) if severity in SEVERITY_RANK else len(SEVERITY_RANK)


def worse_severity(current: str | None, severity: str) -> str:
    if current is None:
        return severity
    return min(current, severity, key=severity_rank)
