"""Lawyers' decisions as labelled examples for the learned router and the second-stage check.

Every (passage, category) a lawyer answered is one (``reviews.PassageLabel``): the passage (its
normalised text, heading and neighbours), the category, and what the lawyer said. A clause
found acceptable or not acceptable, and a clause a lawyer flagged, are positive examples of
their category (a lawyer looked and the clause is there); "not this kind of clause" is a
negative one (a false flag the organisation's models must learn not to raise). Passages with a
clause found not acceptable weigh double, so retraining leans towards what this organisation's
lawyers push back on. Items decided before lawyers answered per category (no labels) count as
before: each category a routing rule or the router named, positive. Read through the passage's
reverse relations, so this module needs nothing from the reviews and queue apps above it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from django.db.models import QuerySet

from reviewapp.contracts.models import Passage
from reviewapp.rules.models import PlaybookVersion
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.engine import SimplePassage, scan
from reviewapp.text.engine.model import ROUTER_CONTEXT_SUFFIX, is_router_rule
from reviewapp.text.evaluation import compiled_playbook
from reviewapp.text.router.features import PassageView, passage_view
from reviewapp.text.router.flags import merge_hits, router_hits
from reviewapp.text.router.model import RouterModel
from reviewapp.text.router.training import Example

NOT_ACCEPTABLE_WEIGHT = 2.0
# ``reviews.LabelKind`` values, read as plain strings (reviews sits above rules).
ACCEPT, REJECT, NOT_THIS, FLAGGED = "accept", "reject", "not_this", "flagged"


@dataclass(frozen=True)
class DecisionLabel:
    passage_id: int
    category: str
    kind: str  # accept | reject | not_this | flagged
    decided_at: datetime
    view: PassageView
    contract_id: int = 0

    @property
    def positive(self) -> bool:
        """The clause is there (a false flag is the one negative)."""
        return self.kind != NOT_THIS

    @property
    def acceptable(self) -> bool:
        return self.kind != REJECT


def decision_labels(*, organisation_id: int, since: datetime | None = None) -> list[DecisionLabel]:
    """The organisation's lawyers' labels, and its older decided items, oldest first."""
    answered = _answered(organisation_id, since)
    rows = [
        (pid, cid, index, category, kind, at)
        for pid, cid, index, category, kind, at in answered
        if at is not None
    ]
    legacy = _legacy(organisation_id, since, exclude={row[0] for row in rows})
    keys = {(cid, index) for _p, cid, index, *_rest in rows + legacy}
    if not keys:
        return []
    views = _views(keys)
    labels = [
        DecisionLabel(pid, category, kind, at, views[(cid, index)], cid)
        for pid, cid, index, category, kind, at in rows + legacy
    ]
    return sorted(labels, key=lambda label: (label.decided_at, label.passage_id, label.category))


Row = tuple[int, int, int, str, str, datetime]


def _answered(organisation_id: int, since: datetime | None) -> list[Row]:
    labelled = Passage.objects.filter(
        lawyer_labels__review__contract__matter__organisation_id=organisation_id
    )
    if since is not None:
        labelled = labelled.filter(lawyer_labels__updated_at__gt=since)
    return list(
        labelled.values_list(
            "id",
            "contract_id",
            "index",
            "lawyer_labels__category",
            "lawyer_labels__kind",
            "lawyer_labels__updated_at",
        )
    )


def _legacy(organisation_id: int, since: datetime | None, *, exclude: set[int]) -> list[Row]:
    """Items decided before per-category answers: each routing category, positive."""
    rows = (
        _decided(organisation_id, since)
        .filter(lawyer_labels__isnull=True)
        .values_list(
            "id", "contract_id", "index", "queue_items__decision", "queue_items__decided_at"
        )
        .order_by("queue_items__decided_at", "id")
    )
    latest = {
        pid: (cid, index, decision, at)
        for pid, cid, index, decision, at in rows
        if at is not None and pid not in exclude
    }
    if not latest:
        return []
    categories = _routing_categories(list(latest))
    return [
        (pid, cid, index, category, ACCEPT if decision == ACCEPT else REJECT, at)
        for pid, (cid, index, decision, at) in latest.items()
        for category in sorted(categories.get(pid, ()))
    ]


def decided_since(*, organisation_id: int, since: datetime | None) -> bool:
    """Whether a lawyer of the organisation decided an item, or labelled a passage, after
    ``since`` (two queries at most)."""
    return _decided(organisation_id, since).exists() or bool(_answered(organisation_id, since)[:1])


def _decided(organisation_id: int, since: datetime | None) -> QuerySet[Passage]:
    decided = Passage.objects.filter(
        queue_items__status="DONE", queue_items__matter__organisation_id=organisation_id
    )
    if since is not None:
        decided = decided.filter(queue_items__decided_at__gt=since)
    return decided


def _routing_categories(passage_ids: list[int]) -> dict[int, set[str]]:
    firings = Passage.objects.filter(pk__in=passage_ids).values_list(
        "id", "firings__rule_id", "firings__category", "firings__playbook_version_id"
    )
    versions = {
        v.pk: playbook_compiled(v)
        for v in PlaybookVersion.objects.filter(
            pk__in={version for *_rest, version in firings if version}
        ).select_related("playbook")
    }
    found: dict[int, set[str]] = defaultdict(set)
    for passage_id, rule_id, category, version_id in firings:
        if rule_id is None:
            continue
        if is_router_rule(rule_id):
            routes = not rule_id.endswith(ROUTER_CONTEXT_SUFFIX)
        else:
            compiled = versions.get(version_id)
            routes = compiled is None or compiled.routes(rule_id)
        if routes:
            found[passage_id].add(category)
    return found


def _views(keys: set[tuple[int, int]]) -> dict[tuple[int, int], PassageView]:
    """Each decided passage with its neighbours, read in one query per contract."""
    wanted: dict[int, set[int]] = defaultdict(set)
    for contract_id, index in keys:
        wanted[contract_id] |= {index - 1, index, index + 1}
    views = {}
    for contract_id, indices in wanted.items():
        rows = list(
            Passage.objects.filter(contract_id=contract_id, index__in=indices).values_list(
                "index", "text", "heading"
            )
        )
        texts = {index: text for index, text, _ in rows}
        headings = {index: heading for index, _, heading in rows}
        for index in indices:
            if (contract_id, index) in keys:
                views[(contract_id, index)] = passage_view(
                    texts.get(index, ""),
                    headings.get(index, ""),
                    texts.get(index - 1, ""),
                    texts.get(index + 1, ""),
                )
    return views


def labels_by_passage(labels: list[DecisionLabel]) -> dict[int, list[DecisionLabel]]:
    by_passage: dict[int, list[DecisionLabel]] = defaultdict(list)
    for label in labels:
        by_passage[label.passage_id].append(label)
    return by_passage


def labels_by_contract(labels: list[DecisionLabel]) -> list[list[list[DecisionLabel]]]:
    """Per contract, per labelled passage, its labels (the order of ``label_examples``)."""
    contracts: dict[int, dict[int, list[DecisionLabel]]] = defaultdict(dict)
    for passage_id, group in labels_by_passage(labels).items():
        contracts[group[0].contract_id][passage_id] = group
    return [list(passages.values()) for passages in contracts.values()]


def label_examples(labels: list[DecisionLabel]) -> list[Example]:
    """One example per contract, a passage per labelled passage, for ``training.fit``: each
    passage labelled with the categories that are there, so a false flag's category is a
    negative example of it; a passage with a clause found not acceptable weighs double. A
    contract is one example so that training by folds holds a contract out whole."""
    examples = []
    for passages in labels_by_contract(labels):
        views = [group[0].view for group in passages]
        there = [
            sorted({label.category for label in group if label.positive}) for group in passages
        ]
        weights = [
            1.0 if all(label.acceptable for label in group) else NOT_ACCEPTABLE_WEIGHT
            for group in passages
        ]
        examples.append(
            Example(
                id=f"decisions:contract:{passages[0][0].contract_id}",
                length=max(1, sum(len(view.text) for view in views)),
                views=views,
                chars=np.array([float(len(view.text)) for view in views]),
                labels=[frozenset(found) for found in there],
                rule_routed=np.ones(len(views), dtype=bool),
                rule_categories=[frozenset()] * len(views),
                clauses=[(c, [row]) for row, found in enumerate(there) for c in found],
                weight=max(weights),
                view_weights=np.array(weights),
            )
        )
    return examples


def router_decision_figures(
    passages_by_example: list[list[list[DecisionLabel]]],
    probabilities: list[Any],
    categories: list[str],
    thresholds: dict[str, float],
) -> dict[str, Any]:
    """How a router's scores (one (passages, categories) array per contract, in the order of
    ``labels_by_contract``) answer the lawyers: clauses there that it flags with their
    category (all, and those found not acceptable), and false flags it still raises."""
    column = {c: k for k, c in enumerate(categories)}
    tally = {"there": [0, 0], "not_acceptable": [0, 0], "false_flags": [0, 0]}
    for passages, scores in zip(passages_by_example, probabilities, strict=True):
        for row, group in enumerate(passages):
            for label in group:
                if label.category not in column:
                    continue
                raised = bool(
                    scores[row, column[label.category]] >= thresholds.get(label.category, 1.01)
                )
                kinds = ["there"] if label.positive else ["false_flags"]
                if label.kind == REJECT:
                    kinds.append("not_acceptable")
                for kind in kinds:
                    tally[kind][0] += 1
                    tally[kind][1] += raised

    def share(kind: str) -> float | None:
        total, hit = tally[kind]
        return hit / total if total else None

    return {
        "labels": tally["there"][0] + tally["false_flags"][0],
        "recall": share("there"),
        "recall_not_acceptable": share("not_acceptable"),
        "false_flags": tally["false_flags"][0],
        "false_flags_raised": share("false_flags"),
    }


@dataclass(frozen=True)
class DecidedPassage:
    """A labelled passage as the second-stage check's training reads it
    (``check.training.examples_from_passages``)."""

    id: str
    text: str
    heading: str
    labels: dict[str, list[tuple[int, int]]]  # the categories that are there
    judged: frozenset[str]  # every category a lawyer answered, false flags included
    weight: float


def decided_passages(labels: list[DecisionLabel]) -> list[DecidedPassage]:
    """One per labelled passage: its false flags are the check's negative candidates, the
    clauses found there (acceptable or not, or flagged by a lawyer) its positive ones."""
    passages = []
    for passage_id, group in labels_by_passage(labels).items():
        view = group[0].view
        there = {label.category for label in group if label.positive}
        passages.append(
            DecidedPassage(
                id=f"decision:{passage_id}",
                text=view.text,
                heading=view.heading,
                labels={category: [(0, len(view.text))] for category in sorted(there)},
                judged=frozenset(label.category for label in group),
                weight=(1.0 if all(label.acceptable for label in group) else NOT_ACCEPTABLE_WEIGHT),
            )
        )
    return passages


def score_on_decisions(
    *, organisation: Any, playbook: Any, router: RouterModel | None
) -> dict[str, Any]:
    """How many of the organisation's decided passages the playbook (and router) would flag
    with their category today; clauses found not acceptable are the ones that must not slip."""
    compiled = compiled_playbook(playbook)
    labels = decision_labels(organisation_id=organisation.pk)
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    hard = [0, 0]
    for label in labels:
        if not label.positive:
            continue
        view = label.view
        passage = SimplePassage(index=0, start=0, end=len(view.text), heading=view.heading)
        hits = scan(compiled, view.text, [passage])
        hits = merge_hits(compiled, hits, router_hits(compiled, router, view.text, [passage], hits))
        flagged = any(hit.category == label.category for hit in hits)
        tally[label.category][0] += 1
        tally[label.category][1] += flagged
        if not label.acceptable:
            hard[0] += 1
            hard[1] += flagged
    labelled = sum(n for n, _ in tally.values())
    caught = sum(c for _, c in tally.values())
    return {
        "organisation": organisation.name,
        "labels": labelled,
        "recall": caught / labelled if labelled else None,
        "recall_not_acceptable": hard[1] / hard[0] if hard[0] else None,
        "categories": {
            c: {"labelled": n, "caught": k, "recall": k / n} for c, (n, k) in sorted(tally.items())
        },
    }
