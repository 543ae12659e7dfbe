"""Lawyers' false flags are negative examples for the router and the second-stage check alike:
models retrained with them raise that category less on such passages."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from reviewapp.rules.learned.check_training import check_train_from_folder, check_train_organisation
from reviewapp.rules.learned.training_labels import DecisionLabel, decided_passages, label_examples
from reviewapp.rules.services import DEFAULTS_DIR
from reviewapp.text.check import training as check_training
from reviewapp.text.check.model import feature_matrix
from reviewapp.text.engine import compile_playbook, load_playbook
from reviewapp.text.router import training
from reviewapp.text.router.features import PassageView
from reviewapp.text.segmentation import segment
from tests.rules.router_corpus import CAP, MFN, corpus, write_folder

# Passages the MFN rule's "lower rates ... than" pattern names that are no MFN clause.
FALSE_FLAGS = [
    f"Buyer may select lower rates for {kind} delivery than for express delivery, at its option."
    for kind in (
        "standard",
        "ground",
        "economy",
        "bulk",
        "overnight",
        "weekend",
        "regional",
        "freight",
        "postal",
        "courier",
        "pallet",
        "container",
    )
]
UNSEEN = "Buyer may select lower rates for rail delivery than for express delivery, at its option."


def labels_of(texts: list[str], kind: str, category: str = MFN) -> list[DecisionLabel]:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    return [
        DecisionLabel(n + 1, category, kind, at, PassageView(text=text), contract_id=n + 1)
        for n, text in enumerate(texts)
    ]


def test_a_false_flag_is_a_negative_router_example_of_its_category():
    (negative,) = label_examples(labels_of(FALSE_FLAGS[:1], "not_this"))
    (positive,) = label_examples(labels_of(FALSE_FLAGS[:1], "flagged"))
    assert negative.labels == [frozenset()] and negative.clauses == []
    assert positive.labels == [frozenset({MFN})]
    examples = training.examples_from_documents(
        corpus(24), [MFN, CAP], scanner=None, segmenter=segment
    )
    negatives = label_examples(labels_of(FALSE_FLAGS, "not_this"))
    positives = label_examples(labels_of(FALSE_FLAGS, "accept"))
    without = training.fit(examples + positives, [MFN, CAP])
    with_negatives = training.fit(examples + negatives, [MFN, CAP])
    unseen = [PassageView(text=UNSEEN)]
    column = without.categories.index(MFN)
    from reviewapp.text.router.model import tokens

    features = [tokens(view) for view in unseen]
    assert (
        with_negatives.probabilities(features)[0, column]
        < without.probabilities(features)[0, column]
    )


def test_a_false_flag_is_a_negative_candidate_of_the_check():
    compiled = compile_playbook(load_playbook(DEFAULTS_DIR / "commercial-en.yaml"))
    passages = decided_passages(labels_of(FALSE_FLAGS[:1], "not_this"))
    (example,) = check_training.examples_from_passages(passages, compiled, router=None)
    named = {c.category: k for k, c in enumerate(example.candidates)}
    assert MFN in named
    assert example.judged[named[MFN]] and not example.target[named[MFN]]
    (kept,) = check_training.examples_from_passages(
        decided_passages(labels_of(FALSE_FLAGS[:1], "reject")), compiled, router=None
    )
    assert kept.target[named[MFN]] and kept.weight == 2.0


@pytest.mark.slow
def test_an_organisations_check_learns_its_false_flags(tmp_path):
    folder = write_folder(tmp_path / "labelled", corpus(30))
    shipped_like, _ = check_train_from_folder(folder=folder, folds=3)
    model, report = check_train_organisation(
        labels=labels_of(FALSE_FLAGS, "not_this"), folder=folder, folds=3
    )
    assert report["decisions"]["false_flags"] == len(FALSE_FLAGS)
    assert report["decisions"]["false_flags_dropped"] is not None
    compiled = compile_playbook(load_playbook(DEFAULTS_DIR / "commercial-en.yaml"))
    (unseen,) = check_training.examples_from_passages(
        decided_passages(labels_of([UNSEEN], "not_this")), compiled, router=None
    )
    row = [c.category for c in unseen.candidates].index(MFN)

    def score(check) -> float:
        matrix = feature_matrix(unseen.text, unseen.shape, check.idf)
        return float(np.asarray(check.probabilities(matrix))[row])

    assert score(model) < score(shipped_like)
    assert score(model) < model.threshold(MFN)  # the organisation's check drops it
