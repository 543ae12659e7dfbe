"""The passage gate: how likely a flagged passage holds a clause at all, read from the passage
as a whole, and the blend of that with the check's score per category.

The check scores each (passage, category) the first stage names. A queue item is a passage,
though, and a passage the first stage names four times gets four chances to pass. The gate is
one logistic regression per passage: its words (not crossed with a category), every category
named there and how (the rules' ids and kinds, the router's bins, length and position), how
many categories, and the check's best calibrated score on it. A category stands when its check
score passes the check's threshold *and* its blended score, ``sigmoid((1 - blend) * logit(check)
+ blend * logit(gate))``, passes the gate's threshold for that category.

Measured on the 311 CUAD development contracts by document folds (thresholds chosen on the
other half), at about the same recall the blend routes about a tenth fewer passages to a
lawyer: see README, "What reaches a lawyer". Scoring the passage whole did better than adding
the same uncrossed words to the check itself (no change) or a boosted tree over the check's
scores and document context (better category precision, worse passage precision).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse

from .features import Candidate, logit

BLEND = 0.7  # weight of the gate's logit in the blended score
_BEST_BINS = (-6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4)
_PER_CANDIDATE = ("rank:", "named:")  # shape tokens that describe one candidate, not the row


@dataclass
class PassageGate:
    idf: np.ndarray  # (N_FEATURES,) float32, 0 for shape-only columns
    coef: np.ndarray  # (N_FEATURES,) float32
    intercept: float
    blend: float = BLEND
    thresholds: dict[str, float] = field(default_factory=dict)  # on the blended score

    def probabilities(self, matrix: sparse.csr_matrix) -> np.ndarray:
        """``matrix``: ``feature_matrix`` of ``GateRows`` text and shape, with ``self.idf``."""
        margins = np.asarray(matrix @ self.coef).ravel() + self.intercept
        return 1.0 / (1.0 + np.exp(-margins))

    def threshold(self, category: str) -> float:
        return float(self.thresholds.get(category, 0.0))


@dataclass(frozen=True)
class GateRows:
    """The passages of one document's candidates: ``rows[n]`` is the passage row of gate row
    ``n``; ``of_candidate[k]`` the gate row of candidate ``k`` (-1: a candidate of a category
    the check was not tuned for, which the gate does not read)."""

    rows: list[int]
    of_candidate: list[int]
    text: list[list[str]]
    shape: list[list[str]]


def gate_rows(
    candidates: Sequence[Candidate],
    text: Sequence[Sequence[str]],
    shape: Sequence[Sequence[str]],
    scores: np.ndarray,
    tuned: Sequence[bool] | np.ndarray | None = None,
) -> GateRows:
    """Gate tokens of every passage among ``candidates`` (with their check ``text`` and
    ``shape`` tokens and calibrated check ``scores``); ``tuned`` says which candidates the
    gate reads (default all)."""
    order: dict[int, int] = {}
    of_candidate = []
    for k, candidate in enumerate(candidates):
        reads = tuned is None or tuned[k]
        of_candidate.append(order.setdefault(candidate.row, len(order)) if reads else -1)
    words: list[list[str]] = [[] for _ in order]
    marks: list[set[str]] = [set() for _ in order]
    best = [-math.inf] * len(order)
    named = [0] * len(order)
    for k, candidate in enumerate(candidates):
        n = of_candidate[k]
        if n < 0:
            continue
        if not words[n]:
            words[n] = [token.partition("|")[2] for token in text[k]]
        marks[n].update(t for t in shape[k] if "|" not in t and not t.startswith(_PER_CANDIDATE))
        marks[n].add(f"cat:{candidate.category}")
        named[n] += 1
        best[n] = max(best[n], logit(float(scores[k])))
    for n, tokens in enumerate(marks):
        tokens.add(f"ncat:{min(named[n], 6)}")
        tokens.update(f"best>={edge}" for edge in _BEST_BINS if best[n] >= edge)
    return GateRows(list(order), of_candidate, words, [sorted(t) for t in marks])


def blended(gate: PassageGate | None, scores: np.ndarray, rows: GateRows, passage: np.ndarray):
    """Per candidate, the blend of its check score and its passage's gate probability
    (``passage``, per gate row); a candidate the gate does not read keeps its check score."""
    scores = np.asarray(scores, dtype=float)
    if gate is None or not len(scores):
        return scores
    where = np.asarray(rows.of_candidate)
    read = where >= 0
    found = scores.copy()
    found[read] = blend_scores(scores[read], passage[where[read]], gate.blend)
    return found


def blend_scores(scores: np.ndarray, passage: np.ndarray, blend: float) -> np.ndarray:
    check = np.clip(np.asarray(scores, dtype=float), 1e-6, 1 - 1e-6)
    gate = np.clip(np.asarray(passage, dtype=float), 1e-6, 1 - 1e-6)
    margin = (1 - blend) * np.log(check / (1 - check)) + blend * np.log(gate / (1 - gate))
    return np.asarray(1.0 / (1.0 + np.exp(-margin)))


def header(gate: PassageGate) -> dict[str, Any]:
    return {"intercept": gate.intercept, "blend": gate.blend, "thresholds": gate.thresholds}
