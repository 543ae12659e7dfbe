"""The check on one document's first-stage hits: a score per (passage, category), and whether
the category stands."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reviewapp.rules.engine import CompiledPlaybook, RuleHit
from reviewapp.rules.router.flags import RouterScan

from .model import CheckModel, feature_matrix
from .training import document_candidates


@dataclass(frozen=True)
class Checked:
    """The check's word on one category of one passage."""

    category: str
    score: float | None  # calibrated probability; None: not scored (see ``why_kept``)
    threshold: float
    stands: bool
    kept_because: str = ""  # "hard-rule", "human-rule", "not-tuned": kept whatever the score
    features: tuple[tuple[str, float], ...] = ()


def check_hits(
    compiled: CompiledPlaybook,
    model: CheckModel | None,
    segments: Sequence[Any],
    hits: Sequence[RuleHit],
    scanned: RouterScan,
) -> dict[tuple[int, str], Checked]:
    """Keyed by (segment index, category). Empty when the check is off or not loaded: then
    every category stands."""
    if model is None or not compiled.playbook.check.enabled or not hits:
        return {}
    columns = {c: k for k, c in enumerate(scanned.categories)} if scanned.categories else None
    found, text, shape = document_candidates(
        compiled, segments, hits, scanned.tokens, columns, scanned.probabilities
    )
    scores = model.probabilities(feature_matrix(text, shape, model.idf))
    human = {h.rule_id for h in hits if h.action == "human" and compiled.routes(h.rule_id)}
    drop_human = compiled.playbook.check.drop_human
    result = {}
    for k, candidate in enumerate(found):
        threshold = model.threshold(candidate.category)
        kept = (
            "hard-rule"
            if candidate.hard
            else "human-rule"
            if not drop_human and human.intersection(candidate.rule_ids)
            else "not-tuned"
            if candidate.category not in model.thresholds
            else ""
        )
        score = float(scores[k])
        result[(segments[candidate.row].index, candidate.category)] = Checked(
            category=candidate.category,
            score=round(score, 4),
            threshold=round(threshold, 4),
            stands=bool(kept) or score >= threshold,
            kept_because=kept,
            features=model.explain(text[k], shape[k]),
        )
    return result
