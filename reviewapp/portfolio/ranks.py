"""How bad a state or a severity is, worst first: one order for the grid, exports and re-runs.

Severities follow the engine's one ranking (`rules.engine.model.severity_rank`); this module
only adds the order of passage states and the tuple form the SQL aggregates index into.
"""

from __future__ import annotations

from reviewapp.contracts.models import PassageState
from reviewapp.text.engine.model import SEVERITY_RANK as _ENGINE_SEVERITY_RANK
from reviewapp.text.engine.model import severity_rank

STATE_RANK: tuple[str, ...] = (
    PassageState.REJECTED,
    PassageState.NEEDS_HUMAN_REVIEW,
    PassageState.PENDING,
    PassageState.CONFIRMED,
)
SEVERITY_RANK: tuple[str, ...] = tuple(sorted(_ENGINE_SEVERITY_RANK, key=severity_rank))

__all__ = ["SEVERITY_RANK", "STATE_RANK", "severity_rank", "worse_severity"]


def worse_severity(current: str | None, severity: str) -> str:
    if current is None:
        return severity
    return min(current, severity, key=severity_rank)
