"""One question per queue item: the categories an item asks about, most likely first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reviewapp.reviews.models import RuleFiring
from reviewapp.text.engine.model import severity_rank


def item_questions(compiled: Any, firings: Sequence[RuleFiring]) -> list[dict[str, Any]]:
    """The questions an item asks, most likely category first: one per category still standing
    after the check (a router's near-threshold name or a secondary rule adds one only where the
    check passed its category). Without check scores, routing rules first, then severity."""
    standing = [f for f in firings if not f.dropped] or list(firings)
    best: dict[str, RuleFiring] = {}
    for firing in sorted(standing, key=lambda f: _likelihood(compiled, f)):
        best.setdefault(firing.category, firing)
    questions = []
    for category, firing in sorted(best.items(), key=lambda pair: _likelihood(compiled, pair[1])):
        rule = (
            compiled.compiled_rule(firing.rule_id).rule
            if firing.rule_id in compiled.by_id
            else None
        )
        questions.append(
            {
                "category": category,
                "question": rule.question if rule else "",
                "score": firing.check_score,
                "rule_id": firing.rule_id,
            }
        )
    return questions


def _likelihood(compiled: Any, firing: RuleFiring) -> tuple[float, bool, int, str]:
    return (
        -(firing.check_score if firing.check_score is not None else 0.0),
        not compiled.routes(firing.rule_id),
        severity_rank(firing.severity),
        firing.rule_id,
    )
