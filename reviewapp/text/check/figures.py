"""What reaches a lawyer, measured: the figures of the lawyer-load issue, per set of documents.

A passage is an *item* when it ends ``NEEDS_HUMAN_REVIEW`` or ``REJECTED`` under the offline
engine: a hard rule rejected it at the scan, or some category still stands after the check and
the offline verifier (``confirm_if`` / ``reject_if`` of the standing rules, a standing ``human``
rule) does not settle it. Figures:

- ``recall``: labelled clauses with an item overlapping them on which their category stands;
- ``passage_precision``: items overlapping some labelled clause;
- ``category_precision``: standing categories of items that a lawyer labelled there;
- ``categories_per_item``, ``items_per_contract`` and ``labelled_passages_per_contract``;
- ``boilerplate_reached``: clauses labelled ``BOILERPLATE`` (none in CUAD) that overlap an item.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # training imports these figures; the examples are only named here
    from .training import CheckExample


def standing(
    example: CheckExample,
    scores: np.ndarray | None,
    thresholds: dict[str, float],
    blends: np.ndarray | None = None,
    passage_thresholds: dict[str, float] | None = None,
) -> list[bool]:
    """Per candidate: does its category stand (hard rules always do; no scores: all stand).
    With ``blends`` (the passage gate's blended scores) it must pass ``passage_thresholds``
    too."""
    if scores is None:
        return [True] * len(example.candidates)
    gate = passage_thresholds or {}
    return [
        c.hard
        or (
            float(scores[k]) >= thresholds.get(c.category, 0.0)
            and (blends is None or float(blends[k]) >= gate.get(c.category, 0.0))
        )
        for k, c in enumerate(example.candidates)
    ]


def items(example: CheckExample, stands: Sequence[bool]) -> dict[int, set[str]]:
    """Rows that reach a lawyer, with the categories standing on each."""
    by_row: dict[int, list[int]] = {}
    for k, candidate in enumerate(example.candidates):
        by_row.setdefault(candidate.row, []).append(k)
    found: dict[int, set[str]] = {}
    for row, ks in by_row.items():
        kept = [example.candidates[k] for k in ks if stands[k]]
        if row in example.rejected_rows or (kept and not _settled(example, row, kept)):
            found[row] = {c.category for c in kept}
    return found


def _settled(example: CheckExample, row: int, kept: list) -> bool:
    """The offline verifier's CONFIRMED on the standing rules (as the review's offline engine
    gives it, ``verification_offline_verdict``)."""
    rules = sorted({rule_id for c in kept for rule_id in c.rule_ids})
    if any(rule_id in example.human for rule_id in rules):
        return False
    verdicts = [example.verdicts.get((rule_id, row)) for rule_id in rules]
    if "REJECTED" in verdicts:
        return False
    primary = [v for rule_id, v in zip(rules, verdicts, strict=True) if rule_id in example.primary]
    return all(v == "CONFIRMED" for v in (primary or verdicts))


def measure(
    examples: Sequence[CheckExample],
    scores: Sequence[np.ndarray] | None,
    thresholds: dict[str, float],
    *,
    only: Iterable[int] | None = None,
    blends: Sequence[np.ndarray] | None = None,
    passage_thresholds: dict[str, float] | None = None,
) -> dict[str, Any]:
    chosen = list(only) if only is not None else list(range(len(examples)))
    labelled = caught = first_caught = n_items = relevant = named = named_right = 0
    labelled_passages = boilerplate = boilerplate_reached = 0
    by_category: dict[str, list[int]] = {}
    for i in chosen:
        example = examples[i]
        stands = standing(
            example,
            scores[i] if scores is not None else None,
            thresholds,
            blends[i] if blends is not None else None,
            passage_thresholds,
        )
        reached = items(example, stands)
        named_anywhere = {(c.row, c.category) for c in example.candidates}
        truth = {(row, category) for category, rows in example.clauses for row in rows}
        for category, rows in example.clauses:
            labelled += 1
            hit = any(category in reached.get(row, ()) for row in rows)
            caught += hit
            first_caught += any((row, category) in named_anywhere for row in rows)
            tally = by_category.setdefault(category, [0, 0])
            tally[0] += 1
            tally[1] += hit
        n_items += len(reached)
        relevant += sum(1 for row in reached if row in example.labelled_rows)
        for row, categories in reached.items():
            named += len(categories)
            named_right += sum(1 for c in categories if (row, c) in truth)
        labelled_passages += len(example.labelled_rows)
        boilerplate += len(example.boilerplate)
        boilerplate_reached += sum(
            any(row in reached for row in rows) for rows in example.boilerplate
        )
    documents = max(len(chosen), 1)
    return {
        "documents": len(chosen),
        "labelled": labelled,
        "recall": caught / labelled if labelled else None,
        "first_stage_named": first_caught / labelled if labelled else None,
        "items": n_items,
        "items_per_contract": n_items / documents,
        "labelled_passages_per_contract": labelled_passages / documents,
        "passage_precision": relevant / n_items if n_items else None,
        "category_precision": named_right / named if named else None,
        "categories_per_item": named / n_items if n_items else None,
        "boilerplate": boilerplate,
        "boilerplate_reached": boilerplate_reached,
        "categories": {c: {"labelled": t[0], "reached": t[1]} for c, t in by_category.items()},
    }


def pooled(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Figures of disjoint sets of documents, as if measured at once."""
    documents = sum(p["documents"] for p in parts)
    labelled = sum(p["labelled"] for p in parts)
    n_items = sum(p["items"] for p in parts)

    def mean(key: str, weight: str) -> float | None:
        total = sum((p[key] or 0) * _weight(p, weight) for p in parts)
        share = sum(_weight(p, weight) for p in parts)
        return total / share if share else None

    return {
        "documents": documents,
        "labelled": labelled,
        "recall": mean("recall", "labelled"),
        "first_stage_named": mean("first_stage_named", "labelled"),
        "items": n_items,
        "items_per_contract": n_items / documents if documents else 0.0,
        "labelled_passages_per_contract": mean("labelled_passages_per_contract", "documents"),
        "passage_precision": mean("passage_precision", "items"),
        "category_precision": mean("category_precision", "named"),
        "categories_per_item": mean("categories_per_item", "items"),
        "boilerplate": sum(p.get("boilerplate", 0) for p in parts),
        "boilerplate_reached": sum(p.get("boilerplate_reached", 0) for p in parts),
    }


def _weight(part: dict[str, Any], name: str) -> float:
    if name == "named":
        return float((part["categories_per_item"] or 0) * part["items"])
    return float(part[name])
