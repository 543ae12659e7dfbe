"""Training and honest scoring of the learned router (scikit-learn logistic regression).

One binary classifier per clause category over the hashed features of ``features.py``; the
coefficients are pruned to the strongest few thousand per category so the shipped model stays
a few megabytes. Thresholds are chosen on out-of-fold scores (a document is never scored by a
model that saw it), greedily: each step lowers the one category threshold that catches the most
labelled clauses per routed character, until the routed share (rules and router together)
reaches the budget. The estimate of unseen-contract performance goes one step further: the
thresholds are chosen on one half of the documents and scored on the other, both ways.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse

from .features import PassageView, views
from .model import N_FEATURES, RouterModel, attach_limits, hasher, weigh

DEFAULT_BUDGET = 0.24  # routed share of rules and router together, out of fold
# Logits below the routing threshold at which a routed passage is still named by a category.
ATTACH_MARGIN = 1.5
KEEP_PER_CATEGORY = 6000
MIN_PASSAGES = 3  # a feature seen in fewer training passages is dropped
C_REGULARISATION = 4.0
_STEPS = 400
CATEGORY_FLOOR = 0.85  # per-category recall the threshold search favours (categories >= 10)
FLOOR_BOOST = 3.0
# How far down one category's thresholds a greedy step looks: near first, then ever further, so
# a category whose next clauses lie deep down is not given up.
_LOOK_AHEAD = (1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 400)


@dataclass
class Example:
    """One labelled document, segmented, with what the rules made of it."""

    id: str
    length: int
    views: list[PassageView]
    chars: np.ndarray  # characters per passage
    labels: list[frozenset[str]]  # categories labelled on each passage
    rule_routed: np.ndarray  # bool per passage: a routing rule fired
    rule_categories: list[frozenset[str]]
    clauses: list[tuple[str, list[int]]]  # each labelled clause: category, passages it overlaps
    weight: float = 1.0
    bare_headings: np.ndarray | None = None  # bool per passage: a heading alone, never routed
    view_weights: np.ndarray | None = None  # per passage, instead of ``weight`` (decisions)


@dataclass
class Scores:
    """Out-of-fold probabilities, one (passages, categories) array per example."""

    categories: list[str]
    by_example: list[np.ndarray] = field(default_factory=list)


def examples_from_documents(
    documents: Sequence[Any],
    categories: Sequence[str],
    *,
    scanner: Callable[[str, Sequence[Any]], tuple[list[bool], list[frozenset[str]]]] | None,
    segmenter: Callable[[str], Sequence[Any]],
) -> list[Example]:
    """``documents`` have ``id``, ``text`` and ``labels`` ({category: [(start, end)]});
    ``scanner(text, segments)`` returns, per passage, whether a routing rule fired and the
    categories of every rule that did (None: no rules)."""
    examples = []
    wanted = set(categories)
    for doc in documents:
        segments = list(segmenter(doc.text))
        texts = [getattr(s, "text", None) or doc.text[s.start : s.end] for s in segments]
        routed, fired = scanner(doc.text, segments) if scanner else ([False] * len(segments), [])
        fired = fired or [frozenset()] * len(segments)
        labels, clauses = passage_labels(doc.labels, segments, wanted)
        examples.append(
            Example(
                id=doc.id,
                length=len(doc.text),
                views=views(texts, [s.heading for s in segments]),
                chars=np.array([s.end - s.start for s in segments], dtype=np.float64),
                labels=[frozenset(found) for found in labels],
                rule_routed=np.array(routed, dtype=bool),
                rule_categories=list(fired),
                clauses=clauses,
                bare_headings=np.array([bool(getattr(s, "is_heading", False)) for s in segments]),
            )
        )
    return examples


def passage_labels(
    spans_by_category: dict[str, list[tuple[int, int]]],
    segments: Sequence[Any],
    wanted: set[str],
) -> tuple[list[set[str]], list[tuple[str, list[int]]]]:
    """Per passage, the categories labelled on it; and each labelled clause of a ``wanted``
    category with the passages (positions) it overlaps."""
    labels: list[set[str]] = [set() for _ in segments]
    clauses = []
    for category, spans in spans_by_category.items():
        if category not in wanted:
            continue
        for start, end in spans:
            overlap = [i for i, s in enumerate(segments) if s.start < end and start < s.end]
            for i in overlap:
                labels[i].add(category)
            clauses.append((category, overlap))
    return labels, clauses


def fit(
    examples: Sequence[Example],
    categories: Sequence[str],
    *,
    meta: dict[str, Any] | None = None,
    keep: int = KEEP_PER_CATEGORY,
) -> RouterModel:
    """A model trained on every passage of ``examples`` (thresholds left to the caller)."""
    # scikit-learn only to train (seconds to import; a review never trains)
    from sklearn.linear_model import LogisticRegression

    passages = [view for example in examples for view in example.views]
    weights = np.concatenate(
        [
            e.view_weights if e.view_weights is not None else np.full(len(e.views), e.weight)
            for e in examples
        ]
    )
    counts = hasher().transform(passages)
    documents_with = np.asarray((counts > 0).sum(axis=0)).ravel()
    idf = (np.log((1 + len(passages)) / (1 + documents_with)) + 1).astype(np.float32)
    idf[documents_with < MIN_PASSAGES] = 0.0  # rare features: noise that slows every fit
    used = np.flatnonzero(idf)
    # Fitting over the used columns only: liblinear's cost grows with the width of the matrix.
    matrix = weigh(counts, idf)[:, used].tocsr()
    columns, intercepts = [], []
    for category in categories:
        target = np.array([category in labels for e in examples for labels in e.labels])
        if target.sum() < 2 or target.all():
            columns.append(sparse.csc_matrix((N_FEATURES, 1), dtype=np.float32))
            intercepts.append(-20.0)
            continue
        model = LogisticRegression(
            C=C_REGULARISATION, class_weight="balanced", solver="liblinear", max_iter=1000
        )
        model.fit(matrix, target, sample_weight=weights)
        columns.append(_pruned(model.coef_.ravel(), used, keep))
        intercepts.append(float(model.intercept_[0]))
    coef = sparse.hstack(columns).tocsc().astype(np.float32)
    info = {"idf_default": 0.0, **(meta or {})}
    return RouterModel(
        list(categories), idf, coef, np.array(intercepts, dtype=np.float32), {}, info
    )


def _pruned(weights: np.ndarray, used: np.ndarray, keep: int) -> sparse.csc_matrix:
    """The ``keep`` strongest weights of one category, back in the full hashed space."""
    order = np.argsort(-np.abs(weights))[:keep]
    order = order[weights[order] != 0]
    return sparse.csc_matrix(
        (weights[order].astype(np.float32), (used[order], np.zeros(len(order), dtype=int))),
        shape=(N_FEATURES, 1),
    )


def out_of_fold(
    examples: Sequence[Example], categories: Sequence[str], *, folds: int = 5
) -> Scores:
    """Each example scored by a model trained on the other folds (fold = position % folds)."""
    scores = Scores(list(categories), [np.zeros((0, 0))] * len(examples))
    for fold in range(folds):
        train = [e for i, e in enumerate(examples) if i % folds != fold]
        model = fit(train, categories)
        for i in range(fold, len(examples), folds):
            probabilities = model.probabilities(examples[i].views)
            if examples[i].bare_headings is not None:
                probabilities[examples[i].bare_headings] = 0.0  # as router_hits: never routed
            scores.by_example[i] = probabilities
    return scores


def choose_thresholds(
    examples: Sequence[Example],
    scores: Scores,
    *,
    budget: float = DEFAULT_BUDGET,
    only: Iterable[int] | None = None,
) -> dict[str, float]:
    """Per-category probability thresholds that catch the most clauses within ``budget``."""
    chosen = list(only) if only is not None else list(range(len(examples)))
    categories = scores.categories
    state = _Greedy(
        [examples[i] for i in chosen], [scores.by_example[i] for i in chosen], categories
    )
    while state.share() < budget:
        best = None
        for column in range(len(categories)):
            # A clause of a category still under the floor counts more: no category is left
            # far behind for the sake of the overall figure.
            boost = FLOOR_BOOST if state.recall(column) < CATEGORY_FLOOR else 1.0
            for step in _LOOK_AHEAD:
                gain, cost = state.gain(column, step)
                value = boost * gain / (cost + 200)
                if gain and (best is None or value > best[0]):
                    best = (value, column, step)
        if best is None:
            break
        state.lower(best[1], best[2])
    return {
        categories[c]: float(state.threshold(c))
        for c in range(len(categories))
        if state.position[c] > 0
    }


class _Greedy:
    """Bookkeeping of the greedy threshold search over the pooled passages of some examples."""

    def __init__(self, examples: list[Example], scores: list[np.ndarray], categories: list[str]):
        self.probabilities = np.vstack(scores)
        self.chars = np.concatenate([e.chars for e in examples])
        self.total = float(sum(e.length for e in examples))
        self.routed = np.concatenate([e.rule_routed for e in examples])
        offsets = np.cumsum([0] + [len(e.views) for e in examples])
        columns = {c: i for i, c in enumerate(categories)}
        self.clauses: list[tuple[int, np.ndarray]] = []
        self.caught: list[bool] = []
        for example, offset in zip(examples, offsets, strict=False):
            for category, passages in example.clauses:
                if category not in columns or not passages:
                    continue
                rows = np.array(passages) + offset
                self.clauses.append((columns[category], rows))
                self.caught.append(
                    any(
                        example.rule_routed[p] and category in example.rule_categories[p]
                        for p in passages
                    )
                )
        levels = np.linspace(1.0, 0.0, _STEPS + 1)
        self.levels = [
            np.quantile(self.probabilities[:, c], 1 - (1 - levels) * 0.5)
            for c in range(self.probabilities.shape[1])
        ]
        self.position = [0] * self.probabilities.shape[1]
        self.by_column: dict[int, list[int]] = {}
        for k, (c, _rows) in enumerate(self.clauses):
            self.by_column.setdefault(c, []).append(k)

    def recall(self, column: int) -> float:
        mine = self.by_column.get(column, [])
        return sum(self.caught[k] for k in mine) / len(mine) if len(mine) >= 5 else 1.0

    def threshold(self, column: int) -> float:
        return float(self.levels[column][self.position[column]])

    def share(self) -> float:
        return float(self.chars[self.routed].sum() / self.total) if self.total else 1.0

    def gain(self, column: int, step: int) -> tuple[int, float]:
        position = self.position[column] + step
        if position > _STEPS:
            return 0, 0.0
        fire = self.probabilities[:, column] >= self.levels[column][position]
        cost = float(self.chars[fire & ~self.routed].sum())
        gain = sum(
            1
            for k in self.by_column.get(column, ())
            if not self.caught[k] and fire[self.clauses[k][1]].any()
        )
        return gain, cost

    def lower(self, column: int, step: int) -> None:
        self.position[column] += step
        fire = self.probabilities[:, column] >= self.threshold(column)
        self.routed |= fire
        for k in self.by_column.get(column, ()):
            if not self.caught[k] and fire[self.clauses[k][1]].any():
                self.caught[k] = True


def measure(
    examples: Sequence[Example],
    scores: Scores,
    thresholds: dict[str, float],
    *,
    use_rules: bool = True,
    attach_margin: float = ATTACH_MARGIN,
    only: Iterable[int] | None = None,
) -> dict[str, Any]:
    """Recall and routed share of rules, router or both (``thresholds`` empty: rules only).

    A clause is caught when a routed passage overlapping it names its category: a rule's, or
    the router's at its threshold, or within ``attach_margin`` of it on a routed passage."""
    chosen = list(only) if only is not None else list(range(len(examples)))
    categories = scores.categories
    column = {c: k for k, c in enumerate(categories)}
    limits = np.array([thresholds.get(c, 1.01) for c in categories])
    named_at = attach_limits(limits, attach_margin)
    labelled: dict[str, int] = dict.fromkeys(categories, 0)
    caught: dict[str, int] = dict.fromkeys(categories, 0)
    routed_chars = total = 0.0
    for i in chosen:
        example = examples[i]
        probabilities = scores.by_example[i]
        routed = np.asarray((probabilities >= limits).any(axis=1))
        if use_rules:
            routed = routed | example.rule_routed
        named = probabilities >= named_at
        routed_chars += float(example.chars[routed].sum())
        total += example.length
        for category, passages in example.clauses:
            if category not in labelled:
                continue
            labelled[category] += 1
            if any(
                routed[p]
                and (
                    (use_rules and category in example.rule_categories[p])
                    or bool(named[p, column[category]])
                )
                for p in passages
            ):
                caught[category] += 1
    return _summary(labelled, caught, routed_chars, total)


def _summary(
    labelled: dict[str, int], caught: dict[str, int], routed: float, total: float
) -> dict[str, Any]:
    all_labelled = sum(labelled.values())
    per_category: dict[str, dict[str, Any]] = {
        c: {"labelled": n, "caught": caught[c], "recall": caught[c] / n if n else None}
        for c, n in labelled.items()
    }
    frequent = [(caught[c] / n, c) for c, n in labelled.items() if n >= 10]
    lowest = min(frequent) if frequent else None
    return {
        "labelled": all_labelled,
        "caught": sum(caught.values()),
        "recall": sum(caught.values()) / all_labelled if all_labelled else None,
        "routed_share": routed / total if total else 0.0,
        "lowest_frequent": {"category": lowest[1], "recall": lowest[0]} if lowest else None,
        "categories": per_category,
    }


def cross_validated_report(
    examples: Sequence[Example],
    scores: Scores,
    *,
    budget: float = DEFAULT_BUDGET,
    seed: int = 0,
    only: Sequence[int] | None = None,
) -> dict[str, Any]:
    """Unseen-contract estimate: out-of-fold scores, thresholds chosen on the other half."""
    chosen = np.array(only if only is not None else range(len(examples)))
    order = chosen[np.random.RandomState(seed).permutation(len(chosen))]
    halves = [sorted(order[: len(order) // 2]), sorted(order[len(order) // 2 :])]
    held_out: dict[str, list[dict[str, Any]]] = {"rules": [], "router": [], "both": []}
    for fit_on, score_on in (halves, halves[::-1]):
        thresholds = choose_thresholds(examples, scores, budget=budget, only=fit_on)
        held_out["rules"].append(measure(examples, scores, {}, only=score_on))
        held_out["router"].append(
            measure(examples, scores, thresholds, use_rules=False, only=score_on)
        )
        held_out["both"].append(measure(examples, scores, thresholds, only=score_on))
    return {name: _pooled(parts, examples, halves) for name, parts in held_out.items()}


def _pooled(
    parts: list[dict[str, Any]], examples: Sequence[Example], halves: list[list[int]]
) -> dict[str, Any]:
    labelled: dict[str, int] = {}
    caught: dict[str, int] = {}
    for part in parts:
        for category, row in part["categories"].items():
            labelled[category] = labelled.get(category, 0) + row["labelled"]
            caught[category] = caught.get(category, 0) + row["caught"]
    lengths = [sum(examples[i].length for i in half) for half in halves[::-1]]
    routed = sum(part["routed_share"] * n for part, n in zip(parts, lengths, strict=True))
    return _summary(labelled, caught, routed, float(sum(lengths)))


def train(
    examples: Sequence[Example],
    categories: Sequence[str],
    *,
    folds: int = 5,
    budget: float = DEFAULT_BUDGET,
    meta: dict[str, Any] | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> tuple[RouterModel, dict[str, Any]]:
    """Cross-validate, choose thresholds on all out-of-fold scores, fit on everything."""
    started = time.perf_counter()
    scores = out_of_fold(examples, categories, folds=folds)
    log(f"out-of-fold scores in {time.perf_counter() - started:.0f} s")
    report = cross_validated_report(examples, scores, budget=budget)
    thresholds = choose_thresholds(examples, scores, budget=budget)
    model = fit(examples, categories, meta=meta)
    model.thresholds = thresholds
    model.meta.update(
        {
            "documents": len(examples),
            "passages": sum(len(e.views) for e in examples),
            "folds": folds,
            "budget": budget,
            "attach_margin": ATTACH_MARGIN,
            "cross_validated": {
                name: {k: v for k, v in part.items() if k != "categories"}
                for name, part in report.items()
            },
        }
    )
    log(f"trained in {time.perf_counter() - started:.0f} s")
    return model, report
