"""The router's flags on a scanned document, as rule hits: the state register, the queue and the
audit treat them like any rule's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from reviewapp.text.engine.compiler import CompiledPlaybook
from reviewapp.text.engine.model import RuleHit, router_rule_id

from .features import tokens, views
from .model import RouterModel, attach_limits


def passage_texts(text: str, segments: Sequence[Any]) -> list[str]:
    """What the router reads of each passage: its normalised text where the segment has one."""
    return [getattr(s, "text", None) or text[s.start : s.end] for s in segments]


@dataclass
class RouterScan:
    """The router's flags on a document, with what it read: each passage's tokens and its
    probabilities per category (the second-stage check reads both)."""

    hits: list[RuleHit]
    tokens: list[list[str]]
    probabilities: np.ndarray | None  # (passages, categories); None: no router ran
    categories: list[str]


def router_hits(
    compiled: CompiledPlaybook,
    model: RouterModel | None,
    text: str,
    segments: Sequence[Any],
    hits: Sequence[RuleHit],
) -> list[RuleHit]:
    """Hits of the playbook's router rules (see ``compiler.router_rules``), passage order."""
    return router_scan(compiled, model, text, segments, hits).hits


def router_scan(
    compiled: CompiledPlaybook,
    model: RouterModel | None,
    text: str,
    segments: Sequence[Any],
    hits: Sequence[RuleHit],
    *,
    probabilities: np.ndarray | None = None,
) -> RouterScan:
    """The router's hits and what it read (``probabilities`` given: scores made elsewhere,
    such as out of fold).

    A category whose probability reaches its threshold routes the passage (``router.<slug>``);
    on a passage routed anyway, a category within ``attach_margin`` logits of its threshold is
    named too (``router.<slug>.context``), so the verifier is asked that category's question.
    """
    passages = views(passage_texts(text, segments), [s.heading or "" for s in segments])
    features = [tokens(view) for view in passages]  # read once, for the scores and the words
    if model is None or not compiled.playbook.router.enabled or not segments:
        return RouterScan([], features, None, [])
    if probabilities is None:
        probabilities = model.probabilities(features)
    found = _flags(compiled, model, segments, hits, features, probabilities)
    return RouterScan(found, features, probabilities, list(model.categories))


def _flags(
    compiled: CompiledPlaybook,
    model: RouterModel,
    segments: Sequence[Any],
    hits: Sequence[RuleHit],
    features: list[list[str]],
    probabilities: np.ndarray,
) -> list[RuleHit]:
    fired: list[set[str]] = [set() for _ in segments]
    routed = np.zeros(len(segments), dtype=bool)
    position = {s.index: n for n, s in enumerate(segments)}
    for hit in hits:
        n = position[hit.segment_index]
        fired[n].add(hit.category)
        routed[n] |= compiled.routes(hit.rule_id)
    limits, attach = _limits(compiled, model)
    routes = probabilities >= limits
    bare_headings = np.array([bool(getattr(s, "is_heading", False)) for s in segments])
    routes[bare_headings] = False  # a heading alone is no clause: it opens the next passage
    routed |= routes.any(axis=1)
    names = probabilities >= attach
    found = []
    for row, column in zip(*np.nonzero(routes | (names & routed[:, None])), strict=True):
        category = model.categories[column]
        context = not routes[row, column]
        if context and category in fired[row]:
            continue
        rule_id = router_rule_id(category, context=context)
        if rule_id not in compiled.by_id:
            continue
        segment = segments[row]
        found.append(
            RuleHit(
                rule_id=rule_id,
                category=category,
                action="verify",
                severity=compiled.compiled_rule(rule_id).rule.severity,
                segment_index=segment.index,
                match_start=segment.start,
                match_end=segment.end,
                score=round(float(probabilities[row, column]), 3),
                # A near-threshold name is never shown with its words (see the review page).
                words=() if context else model.explain(features[row], int(column)),
            )
        )
    return found


def _limits(compiled: CompiledPlaybook, model: RouterModel) -> tuple[np.ndarray, np.ndarray]:
    chosen = {**model.thresholds, **compiled.playbook.router.threshold_map()}
    margin = float(model.meta.get("attach_margin", 0.0))
    limits = np.array([chosen.get(c, 1.01) for c in model.categories])
    return limits, attach_limits(limits, margin)


def merge_hits(compiled: CompiledPlaybook, *groups: Sequence[RuleHit]) -> list[RuleHit]:
    """Rule and router hits in passage order, then playbook order (router rules last)."""
    every = [hit for group in groups for hit in group]
    return sorted(every, key=lambda h: (h.segment_index, compiled.by_id.get(h.rule_id, 1 << 30)))
