"""Training and honest scoring of the second-stage check (scikit-learn logistic regression).

The first stage (rules plus the learned router) names categories on passages; each (passage,
category) it names is a candidate, labelled by whether a lawyer's clause of that category
overlaps the passage. The router's probabilities are features, so they must be the ones an
unseen contract gets: each document's come from a router trained on the other folds. The check
itself is then scored by the same document folds (a document is never scored by a check, or a
router, that saw it), calibrated on those out-of-fold scores (Platt), and its per-category
thresholds chosen on them for recall: for each category, the highest threshold that keeps
``recall`` of the category's clauses the first stage caught, on the pooled out-of-fold scores
of the documents used to choose. The estimate for unseen contracts chooses on one half of the
documents and scores the other, both ways.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reviewapp.text.engine import (
    CompiledPlaybook,
    RuleHit,
    SimplePassage,
    offline_verdict,
    passage_states,
    scan,
)
from reviewapp.text.engine.scanner import REJECTED
from reviewapp.text.evaluation import BOILERPLATE
from reviewapp.text.router import training as router_training
from reviewapp.text.router.flags import merge_hits, router_scan
from reviewapp.text.router.model import RouterModel

from .features import (
    Candidate,
    PassageFacts,
    candidates,
    shape_tokens,
    text_tokens,
    text_words,
)
from .figures import measure, pooled
from .model import N_FEATURES, CheckModel, feature_matrix, gate_blended, hasher
from .passage_gate import PassageGate, gate_rows

C_REGULARISATION = 1.0
MIN_CANDIDATES = 3  # a text feature seen in fewer training candidates is dropped
DEFAULT_RECALL = 0.95  # of each category's clauses that the first stage caught
# ... and, of those, what the blend with the passage gate keeps (both thresholds must pass)
DEFAULT_PASSAGE_RECALL = 0.97
GATE_C = 1.0
CATEGORY_FLOOR = 0.8  # of each category's own caught clauses, whatever the level
MIN_POSITIVES = 20  # fewer caught clauses: too few to set a category's own floor


@dataclass
class CheckExample:
    """One labelled document as the check sees it, with what the offline verifier needs."""

    id: str
    passages: int
    candidates: list[Candidate]
    text: list[list[str]]
    shape: list[list[str]]
    target: np.ndarray  # bool per candidate: a lawyer's clause of its category is there
    judged: np.ndarray  # bool per candidate: its category is one the labels cover
    clauses: list[tuple[str, list[int]]]  # labelled clause: category, the rows it overlaps
    labelled_rows: set[int]  # rows overlapping any labelled clause
    rejected_rows: set[int]  # rows a hard rule rejected at the scan
    boilerplate: list[list[int]] = field(default_factory=list)  # rows of each BOILERPLATE clause
    verdicts: dict[tuple[str, int], str | None] = field(default_factory=dict)
    human: set[str] = field(default_factory=set)  # routing rules with action human
    primary: set[str] = field(default_factory=set)  # rules that route by themselves
    router: np.ndarray | None = None  # (passages, categories) router probabilities
    router_columns: dict[str, int] | None = None
    weight: float = 1.0  # a lawyer's decided passage with a clause not acceptable weighs more


def first_stage(
    compiled: CompiledPlaybook,
    router: RouterModel | None,
    text: str,
    segments: Sequence[Any],
    hits: Sequence[RuleHit],
    *,
    probabilities: np.ndarray | None = None,
) -> tuple[list[RuleHit], list[list[str]], dict[str, int] | None, np.ndarray | None]:
    """Rule and router hits, the router's tokens per passage and its probabilities."""
    scanned = router_scan(compiled, router, text, segments, hits, probabilities=probabilities)
    merged = merge_hits(compiled, hits, scanned.hits)
    columns = {c: k for k, c in enumerate(scanned.categories)} if scanned.categories else None
    return merged, scanned.tokens, columns, scanned.probabilities


def document_candidates(
    compiled: CompiledPlaybook,
    segments: Sequence[Any],
    hits: Sequence[RuleHit],
    tokens: list[list[str]],
    columns: dict[str, int] | None,
    probabilities: np.ndarray | None,
) -> tuple[list[Candidate], list[list[str]], list[list[str]]]:
    """The candidates of one document and their text and shape tokens (training and use)."""
    row_of = {s.index: n for n, s in enumerate(segments)}
    routes = {hit.rule_id: compiled.routes(hit.rule_id) for hit in hits}
    found = candidates(hits, row_of, routes)
    by_row: dict[int, list[Candidate]] = {}
    for candidate in found:
        by_row.setdefault(candidate.row, []).append(candidate)
    total = max(len(segments) - 1, 1)
    language = compiled.playbook.language
    text, shape = [], []
    words: dict[int, list[str]] = {}
    facts: dict[int, PassageFacts] = {}
    for candidate in found:
        row = candidate.row
        if row not in facts:
            segment = segments[row]
            facts[row] = PassageFacts(
                chars=segment.end - segment.start,
                position=row / total,
                is_heading=bool(getattr(segment, "is_heading", False)),
                probabilities=_row_probabilities(columns, probabilities, row, by_row[row]),
            )
            words[row] = text_words(tokens[row], language=language)
        text.append(text_tokens(candidate.category, words[row]))
        shape.append(shape_tokens(candidate, facts[row], by_row[row], routes))
    return found, text, shape


def _row_probabilities(
    columns: dict[str, int] | None,
    probabilities: np.ndarray | None,
    row: int,
    named: list[Candidate],
) -> dict[str, float]:
    """The router's probabilities of the categories named on a passage (what the shape reads)."""
    if columns is None or probabilities is None:
        return {}
    wanted = {c.category for c in named if c.category in columns}
    return {c: float(probabilities[row, columns[c]]) for c in wanted}


def examples_from_documents(
    documents: Sequence[Any],
    categories: Sequence[str],
    compiled: CompiledPlaybook,
    *,
    router: RouterModel | None,
    segmenter: Callable[[str], Sequence[Any]],
    contract_type: Callable[[str], str | None],
    folds: int = 5,
    log: Callable[[str], None] = lambda line: None,
    router_scores: list[np.ndarray] | None = None,
) -> list[CheckExample]:
    """Candidates of every document, with out-of-fold router probabilities (``router`` is
    only the settings holder: thresholds and margin; its weights are not used)."""
    started = time.perf_counter()
    segmented = [list(segmenter(doc.text)) for doc in documents]
    rule_hits = [
        scan(compiled, doc.text, segments, contract_type=contract_type(doc.text))
        for doc, segments in zip(documents, segmented, strict=True)
    ]
    log(f"segmented and scanned in {time.perf_counter() - started:.0f} s")
    # The router's own categories, in its order: its thresholds and rule ids follow them.
    routed = list(router.categories) if router is not None else []
    probabilities = router_scores or (
        _router_out_of_fold(documents, routed, segmented, rule_hits, folds, log) if routed else None
    )
    examples = []
    for n, doc in enumerate(documents):
        segments = segmented[n]
        hits, tokens, columns, scores = first_stage(
            compiled,
            router,
            doc.text,
            segments,
            rule_hits[n],
            probabilities=probabilities[n] if probabilities else None,
        )
        example = _example(compiled, doc, categories, segments, hits, tokens, columns, scores)
        example.router = scores
        example.router_columns = columns
        examples.append(example)
    log(f"{sum(len(e.candidates) for e in examples)} candidates in {len(examples)} documents")
    return examples


def examples_from_passages(
    passages: Sequence[Any],
    compiled: CompiledPlaybook,
    *,
    router: RouterModel | None,
) -> list[CheckExample]:
    """One-passage examples (a lawyer's decided passages): each has ``id``, ``text``,
    ``heading``, ``labels`` ({category: [(start, end)]}: the categories that are there),
    ``judged`` (every category a lawyer answered there, so a false flag's candidate is a
    negative) and ``weight``. The router, if any, scores the passage itself: it must be one
    trained without these passages."""
    examples = []
    for passage in passages:
        segments = [SimplePassage(index=0, start=0, end=len(passage.text), heading=passage.heading)]
        hits = scan(compiled, passage.text, segments)
        merged, tokens, columns, scores = first_stage(
            compiled, router, passage.text, segments, hits
        )
        example = _example(
            compiled, passage, sorted(passage.judged), segments, merged, tokens, columns, scores
        )
        example.router, example.router_columns = scores, columns
        example.weight = passage.weight
        examples.append(example)
    return examples


def _router_out_of_fold(documents, categories, segmented, rule_hits, folds, log):
    cached = {id(doc.text): segments for doc, segments in zip(documents, segmented, strict=True)}

    def segmenter(text: str) -> Sequence[Any]:
        return cached[id(text)]

    examples = router_training.examples_from_documents(
        documents, categories, scanner=None, segmenter=segmenter
    )
    started = time.perf_counter()
    scores = router_training.out_of_fold(examples, categories, folds=folds)
    log(f"router out of fold in {time.perf_counter() - started:.0f} s")
    return scores.by_example


def _example(compiled, doc, categories, segments, hits, tokens, columns, scores) -> CheckExample:
    found, text, shape = document_candidates(compiled, segments, hits, tokens, columns, scores)
    wanted = set(categories)
    labels, clauses = router_training.passage_labels(doc.labels, segments, wanted)
    _, boilerplate = router_training.passage_labels(doc.labels, segments, {BOILERPLATE})
    states = passage_states(segments, hits)
    row_of = {s.index: n for n, s in enumerate(segments)}
    example = CheckExample(
        id=doc.id,
        passages=len(segments),
        candidates=found,
        text=text,
        shape=shape,
        target=np.array([c.category in labels[c.row] for c in found], dtype=bool),
        judged=np.array([c.category in wanted for c in found], dtype=bool),
        clauses=clauses,
        labelled_rows={i for i, found_here in enumerate(labels) if found_here},
        rejected_rows={i for i, state in enumerate(states) if state == REJECTED},
        boilerplate=[rows for _, rows in boilerplate],
    )
    passage_text = [getattr(s, "text", None) or doc.text[s.start : s.end] for s in segments]
    for hit in hits:
        rule = compiled.compiled_rule(hit.rule_id).rule
        row = row_of[hit.segment_index]
        if compiled.routes(hit.rule_id):
            example.primary.add(hit.rule_id)
            if rule.action == "human":
                example.human.add(hit.rule_id)
        verdict = offline_verdict(compiled, hit.rule_id, passage_text[row])
        example.verdicts[(hit.rule_id, row)] = verdict.state if verdict else None
    return example


# ---------------------------------------------------------------- fitting


def fit(examples: Sequence[CheckExample], *, meta: dict[str, Any] | None = None) -> CheckModel:
    """A check trained on every candidate of ``examples`` (calibration and thresholds left to
    the caller)."""
    # scikit-learn only to train (seconds to import; a review never trains)
    from sklearn.linear_model import LogisticRegression

    text = [t for e in examples for t, keep in zip(e.text, e.judged, strict=True) if keep]
    shape = [t for e in examples for t, keep in zip(e.shape, e.judged, strict=True) if keep]
    target = np.concatenate([e.target[e.judged] for e in examples])
    weights = np.concatenate([np.full(int(e.judged.sum()), e.weight) for e in examples])
    idf = _idf(text)
    matrix = feature_matrix(text, shape, idf)
    used = np.unique(matrix.indices)
    model = LogisticRegression(
        C=C_REGULARISATION, class_weight="balanced", solver="liblinear", max_iter=2000
    )
    model.fit(matrix[:, used], target, sample_weight=weights)
    coef = np.zeros(N_FEATURES, dtype=np.float32)
    coef[used] = model.coef_.ravel()
    info = {"candidates": int(len(target)), "positives": int(target.sum()), **(meta or {})}
    return CheckModel(idf, coef, float(model.intercept_[0]), (1.0, 0.0), {}, info)


def _idf(text: Sequence[list[str]]) -> np.ndarray:
    counts = hasher().transform(list(text))
    seen = np.asarray((counts > 0).sum(axis=0)).ravel()
    idf = (np.log((1 + len(text)) / (1 + seen)) + 1).astype(np.float32)
    idf[seen < MIN_CANDIDATES] = 0.0
    return idf


def fit_gate(
    examples: Sequence[CheckExample],
    scores: Sequence[np.ndarray],
    only: Iterable[int] | None = None,
) -> PassageGate:
    """The passage gate (``passage_gate``) trained on the passages of ``examples``' candidates,
    ``scores`` being the check's out-of-fold scores (what an unseen contract gets); a passage
    is a positive when it overlaps a lawyer's clause. Thresholds are left to the caller."""
    # scikit-learn only to train (seconds to import; a review never trains)
    from sklearn.linear_model import LogisticRegression

    text: list[list[str]] = []
    shape: list[list[str]] = []
    target: list[bool] = []
    weights: list[float] = []
    for i in only if only is not None else range(len(examples)):
        example = examples[i]
        if not example.judged.any():
            continue
        rows = gate_rows(example.candidates, example.text, example.shape, scores[i], example.judged)
        text += rows.text
        shape += rows.shape
        target += [row in example.labelled_rows for row in rows.rows]
        weights += [example.weight] * len(rows.rows)
    idf = _idf(text)
    if len(set(target)) < 2:  # a tiny training set: the gate says what it saw, for every row
        share = min(max(float(np.mean(target)) if target else 0.5, 0.01), 0.99)
        return PassageGate(idf, np.zeros(N_FEATURES, np.float32), math.log(share / (1 - share)))
    matrix = feature_matrix(text, shape, idf)
    used = np.unique(matrix.indices)
    model = LogisticRegression(C=GATE_C, solver="liblinear", max_iter=3000)
    model.fit(matrix[:, used], np.array(target, dtype=bool), sample_weight=np.array(weights))
    coef = np.zeros(N_FEATURES, dtype=np.float32)
    coef[used] = model.coef_.ravel()
    return PassageGate(idf, coef, float(model.intercept_[0]))


def gate_blends(gate: PassageGate | None, example: CheckExample, scores: np.ndarray) -> np.ndarray:
    """The example's candidates' check ``scores`` blended with ``gate``'s passages."""
    rows = gate_rows(example.candidates, example.text, example.shape, scores, example.judged)
    return gate_blended(gate, scores, rows)


def gate_out_of_fold(
    examples: Sequence[CheckExample], scores: Sequence[np.ndarray], *, folds: int = 5
) -> list[np.ndarray]:
    """Blended scores of each example from a gate trained on the other folds."""
    blends: list[np.ndarray] = [np.asarray(s, dtype=float) for s in scores]
    for fold in range(folds):
        gate = fit_gate(examples, scores, [i for i in range(len(examples)) if i % folds != fold])
        for i in range(fold, len(examples), folds):
            blends[i] = gate_blends(gate, examples[i], scores[i])
    return blends


@dataclass
class Scored:
    """Every example's candidates scored out of fold: the check's calibrated probability and
    its blend with the passage gate."""

    calibration: tuple[float, float]
    scores: list[np.ndarray]
    blends: list[np.ndarray]


def scored_out_of_fold(examples: Sequence[CheckExample], *, folds: int = 5) -> Scored:
    margins = out_of_fold(examples, folds=folds)
    calibration = calibrate(examples, margins)
    scores = probabilities(margins, calibration)
    return Scored(calibration, scores, gate_out_of_fold(examples, scores, folds=folds))


def scored_by(model: CheckModel, examples: Sequence[CheckExample]) -> Scored:
    """Every example's candidates scored by a trained check (and its gate, if it has one)."""
    scores = [
        model.probabilities(feature_matrix(e.text, e.shape, model.idf))
        if e.candidates
        else np.zeros(0)
        for e in examples
    ]
    blends = [gate_blends(model.gate, e, s) for e, s in zip(examples, scores, strict=True)]
    return Scored(model.calibration, scores, blends)


def out_of_fold(examples: Sequence[CheckExample], *, folds: int = 5) -> list[np.ndarray]:
    """Margins of each example's candidates from a check trained on the other folds (fold =
    position % folds, the router's folds)."""
    margins: list[np.ndarray] = [np.zeros(0)] * len(examples)
    for fold in range(folds):
        model = fit([e for i, e in enumerate(examples) if i % folds != fold])
        for i in range(fold, len(examples), folds):
            example = examples[i]
            if example.candidates:
                margins[i] = model.margins(feature_matrix(example.text, example.shape, model.idf))
    return margins


def fitted(
    examples: Sequence[CheckExample],
    scored: Scored,
    *,
    recall: float,
    passage_recall: float,
    meta: dict[str, Any] | None = None,
) -> CheckModel:
    """The check and its passage gate fitted on every example, with the calibration and the
    thresholds of their out-of-fold scores."""
    model = fit(examples, meta=meta)
    model.calibration = scored.calibration
    model.thresholds = choose_thresholds(examples, scored.scores, recall=recall)
    model.gate = fit_gate(examples, scored.scores)
    model.gate.thresholds = choose_thresholds(examples, scored.blends, recall=passage_recall)
    return model


def calibrate(examples: Sequence[CheckExample], margins: Sequence[np.ndarray]) -> tuple:
    """Platt scaling of out-of-fold margins: (a, b) with p = sigmoid(a * margin + b)."""
    # scikit-learn only to train (seconds to import; a review never trains)
    from sklearn.linear_model import LogisticRegression

    x = np.concatenate([m[e.judged] for e, m in zip(examples, margins, strict=True)])
    x = x.reshape(-1, 1)
    y = np.concatenate([e.target[e.judged] for e in examples])
    platt = LogisticRegression(C=1e6, solver="lbfgs").fit(x, y)
    return float(platt.coef_[0, 0]), float(platt.intercept_[0])


def probabilities(margins: Sequence[np.ndarray], calibration: tuple) -> list[np.ndarray]:
    a, b = calibration
    return [1.0 / (1.0 + np.exp(-(a * m + b))) for m in margins]


def choose_thresholds(
    examples: Sequence[CheckExample],
    scores: Sequence[np.ndarray],
    *,
    recall: float = DEFAULT_RECALL,
    floor: float = CATEGORY_FLOOR,
    only: Iterable[int] | None = None,
) -> dict[str, float]:
    """Per-category thresholds on the calibrated scores: one level for every category, the
    highest that keeps ``recall`` of the clauses the first stage caught, then lowered for any
    category that keeps under ``floor`` of its own clauses there (categories of at least
    ``MIN_POSITIVES`` caught clauses). Calibration is shared, so a rare category takes the
    common level; a category the labels do not cover gets none and always stands.

    Measured by halves, one level beats a greedy search of per-category levels: with 33
    categories of 8 to 400 clauses each, the per-category levels fit one half's noise (held
    out they keep fewer clauses for more passages)."""
    chosen = list(only) if only is not None else list(range(len(examples)))
    best = _best_scores(examples, scores, chosen)
    caught = [np.array(v) for v in best.values()]
    pooled = np.sort(np.concatenate(caught))[::-1] if caught else np.zeros(0)
    level = float(pooled[int(np.ceil(recall * len(pooled))) - 1]) if len(pooled) else 0.0
    thresholds = {}
    judged = {
        c.category
        for i in chosen
        for c, keep in zip(examples[i].candidates, examples[i].judged, strict=True)
        if keep
    }
    for category in sorted(judged):
        ordered = np.sort(np.array(best.get(category, [])))[::-1]
        own = level
        if floor > 0 and len(ordered) >= MIN_POSITIVES:
            own = float(ordered[max(int(np.ceil(floor * len(ordered))), 1) - 1])
        thresholds[category] = round(min(level, own), 6) - 1e-6
    return thresholds


def _best_scores(
    examples: Sequence[CheckExample], scores: Sequence[np.ndarray], chosen: list[int]
) -> dict[str, list[float]]:
    """Per category, each caught clause's best candidate score."""
    best: dict[str, list[float]] = {}
    for i in chosen:
        example, score = examples[i], scores[i]
        at = {(c.row, c.category): score[k] for k, c in enumerate(example.candidates)}
        for category, rows in example.clauses:
            found = [at[(row, category)] for row in rows if (row, category) in at]
            if found:
                best.setdefault(category, []).append(float(max(found)))
    return best


def cross_validated_report(
    examples: Sequence[CheckExample],
    scores: Sequence[np.ndarray],
    *,
    recall: float = DEFAULT_RECALL,
    seed: int = 0,
    blends: Sequence[np.ndarray] | None = None,
    passage_recall: float = DEFAULT_PASSAGE_RECALL,
) -> dict[str, Any]:
    """Unseen-contract estimate: out-of-fold scores, thresholds chosen on the other half.
    With ``blends`` (the passage gate's, out of fold) both thresholds must pass."""
    order = np.random.RandomState(seed).permutation(len(examples))
    halves = [sorted(order[: len(order) // 2]), sorted(order[len(order) // 2 :])]
    first, checked = [], []
    for fit_on, score_on in (halves, halves[::-1]):
        thresholds = choose_thresholds(examples, scores, recall=recall, only=fit_on)
        gate = (
            choose_thresholds(examples, blends, recall=passage_recall, only=fit_on)
            if blends is not None
            else None
        )
        first.append(measure(examples, None, {}, only=score_on))
        checked.append(
            measure(
                examples,
                scores,
                thresholds,
                only=score_on,
                blends=blends,
                passage_thresholds=gate,
            )
        )
    return {"first_stage": pooled(first), "checked": pooled(checked)}


def train(
    examples: Sequence[CheckExample],
    *,
    folds: int = 5,
    recall: float = DEFAULT_RECALL,
    passage_recall: float = DEFAULT_PASSAGE_RECALL,
    meta: dict[str, Any] | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> tuple[CheckModel, dict[str, Any]]:
    """Score by folds, calibrate, estimate by halves, choose thresholds, fit on everything."""
    started = time.perf_counter()
    scored = scored_out_of_fold(examples, folds=folds)
    log(f"out-of-fold scores in {time.perf_counter() - started:.0f} s")
    report = cross_validated_report(
        examples,
        scored.scores,
        recall=recall,
        blends=scored.blends,
        passage_recall=passage_recall,
    )
    model = fitted(examples, scored, recall=recall, passage_recall=passage_recall, meta=meta)
    model.meta.update(
        {
            "documents": len(examples),
            "folds": folds,
            "recall_kept": recall,
            "passage_recall_kept": passage_recall,
            "cross_validated": report,
        }
    )
    log(f"trained in {time.perf_counter() - started:.0f} s")
    return model, report
