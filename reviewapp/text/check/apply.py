"""The check on one document's first-stage hits: a score per (passage, category), and whether
the category stands."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reviewapp.text.engine import CompiledPlaybook, RuleHit
from reviewapp.text.router.flags import RouterScan

from .model import CheckModel, feature_matrix
from .passage_gate import gate_rows
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
    blended: float | None = None  # with the passage gate's probability (passage_gate)


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
    matrix = feature_matrix(text, shape, model.idf)
    scores = model.probabilities(matrix)
    tuned = [c.category in model.thresholds for c in found]
    blend = model.blended(scores, gate_rows(found, text, shape, scores, tuned))
    human = {h.rule_id for h in hits if h.action == "human" and compiled.routes(h.rule_id)}
    drop_human = compiled.playbook.check.drop_human
    kept = [_kept_because(model, c, human, drop_human) for c in found]
    stands = [
        bool(kept[k]) or model.stands(c.category, float(scores[k]), float(blend[k]))
        for k, c in enumerate(found)
    ]
    explained = _explained(model, matrix, found, text, shape, scores, stands)
    result = {}
    for k, candidate in enumerate(found):
        score, threshold = _deciding(model, candidate.category, scores[k], blend[k], stands[k])
        result[(segments[candidate.row].index, candidate.category)] = Checked(
            category=candidate.category,
            score=round(score, 4),
            threshold=round(threshold, 4),
            stands=stands[k],
            kept_because=kept[k],
            features=explained.get(k, ()),
            blended=round(float(blend[k]), 4) if model.gate is not None else None,
        )
    return result


def _deciding(
    model: CheckModel, category: str, score: float, blend: float, stands: bool
) -> tuple[float, float]:
    """The score and threshold a lawyer reads for a category: the check's, or, for one the
    check kept and the passage gate dropped, the blended score against the gate's threshold."""
    threshold = model.threshold(category)
    if stands or model.gate is None or float(score) < threshold:
        return float(score), threshold
    return float(blend), model.gate.threshold(category)


def _kept_because(model: CheckModel, candidate: Any, human: set[str], drop_human: bool) -> str:
    if candidate.hard:
        return "hard-rule"
    if not drop_human and human.intersection(candidate.rule_ids):
        return "human-rule"
    if candidate.category not in model.thresholds:
        return "not-tuned"
    return ""


def _explained(model, matrix, found, text, shape, scores, stands) -> dict[int, tuple]:
    """Explanations of what a lawyer may read: every standing category, and on a passage the
    check settles, its best-scoring one (explaining all would double the check's cost)."""
    best: dict[int, int] = {}
    for k, candidate in enumerate(found):
        if candidate.row not in best or scores[k] > scores[best[candidate.row]]:
            best[candidate.row] = k
    rows = sorted({k for k, stand in enumerate(stands) if stand} | set(best.values()))
    if not rows:
        return {}
    tokens = [text[k] + shape[k] for k in rows]
    return dict(zip(rows, model.explain(matrix[rows], tokens), strict=True))
