"""The passage gate: scored per passage, blended with the check's score per category, stored
in the check's file (loaded without pickle), and a check file from before it still loads."""

from __future__ import annotations

import numpy as np
import pytest

from reviewapp.text.check import shipped_check_path
from reviewapp.text.check import training as check_training
from reviewapp.text.check.features import Candidate
from reviewapp.text.check.model import feature_matrix, load_check
from reviewapp.text.check.passage_gate import blend_scores, gate_rows
from reviewapp.text.check.training import CheckExample

AUDIT = "Audit Rights"
ASSIGN = "Anti-Assignment"


def _candidate(row: int, category: str, rule: str, *, secondary: bool = False) -> Candidate:
    return Candidate(row=row, category=category, rule_ids=(rule,), secondary=secondary, hard=False)


def _example(n: int, *, clause: bool) -> CheckExample:
    """Row 0 names two categories with the same shape and words that say nothing of either:
    whether it holds a clause shows only in the passage's other words (``w:books``), which the
    check reads crossed with each category and the gate reads once for the passage."""
    words = ["w:shall", "w:party", "w:books" if clause else "w:notice"]
    candidates = [_candidate(0, AUDIT, "en.audit"), _candidate(0, ASSIGN, "en.assign")]
    return CheckExample(
        id=f"doc-{n}",
        passages=1,
        candidates=candidates,
        text=[[f"{AUDIT}|{w}" for w in words], [f"{ASSIGN}|{w}" for w in words]],
        shape=[["kind:rule", "rule:en.audit"], ["kind:rule", "rule:en.assign"]],
        target=np.array([clause, False]),
        judged=np.array([True, True]),
        clauses=[(AUDIT, [0])] if clause else [],
        labelled_rows={0} if clause else set(),
        rejected_rows=set(),
    )


@pytest.fixture(scope="module")
def trained():
    examples = [_example(n, clause=n % 2 == 0) for n in range(40)]
    model, report = check_training.train(examples, folds=4, recall=0.95, passage_recall=0.9)
    return model, report, examples


def test_gate_rows_read_each_passage_once_and_skip_untuned_categories():
    candidates = [
        _candidate(3, AUDIT, "en.audit"),
        _candidate(3, ASSIGN, "en.assign", secondary=True),
        _candidate(5, "Confidentiality", "en.conf"),
    ]
    text = [[f"{AUDIT}|w:books"], [f"{ASSIGN}|w:books"], ["Confidentiality|w:secret"]]
    shape = [["kind:rule", "rank:1"], ["kind:secondary", "rank:2"], ["kind:rule"]]
    rows = gate_rows(candidates, text, shape, np.array([0.9, 0.2, 0.5]), [True, True, False])
    assert rows.rows == [3] and rows.of_candidate == [0, 0, -1]
    assert rows.text == [["w:books"]]  # the words once, not crossed with a category
    marks = set(rows.shape[0])
    assert {f"cat:{AUDIT}", f"cat:{ASSIGN}", "kind:rule", "kind:secondary", "ncat:2"} <= marks
    assert "best>=2" in marks and "best>=3" not in marks  # logit(0.9) is 2.2
    assert not any(mark.startswith("rank:") for mark in marks)


def test_blend_moves_a_score_towards_the_passage_probability():
    blended = blend_scores(np.array([0.5, 0.5]), np.array([0.9, 0.1]), 0.7)
    assert blended[0] > 0.8 and blended[1] < 0.2


def test_trained_check_carries_a_gate_that_reads_the_passage(trained):
    model, report, examples = trained
    assert model.gate is not None and model.gate.thresholds
    yes, no = examples[0], examples[1]
    scored = check_training.scored_by(model, [yes, no])
    assert scored.blends[0][0] > scored.blends[1][0]  # the clause's passage scores higher
    assert report["checked"]["recall"] >= 0.85
    assert model.meta["passage_recall_kept"] == 0.9


def test_a_category_stands_only_when_check_and_blend_both_pass(trained):
    model, _, _ = trained
    threshold = model.threshold(AUDIT)
    gate_threshold = model.gate.threshold(AUDIT)
    assert model.stands(AUDIT, threshold + 0.01, gate_threshold + 0.01)
    assert not model.stands(AUDIT, threshold + 0.01, gate_threshold - 0.01)
    assert not model.stands(AUDIT, threshold - 0.01, gate_threshold + 0.01)


def test_gate_round_trips_in_the_check_file_without_pickle(trained):
    model, _, examples = trained
    loaded = load_check(model.to_bytes())
    assert loaded.gate is not None
    assert loaded.gate.blend == model.gate.blend
    assert loaded.gate.thresholds == pytest.approx(model.gate.thresholds)
    rows = gate_rows(
        examples[0].candidates, examples[0].text, examples[0].shape, np.array([0.5, 0.5])
    )
    before = model.gate.probabilities(feature_matrix(rows.text, rows.shape, model.gate.idf))
    after = loaded.gate.probabilities(feature_matrix(rows.text, rows.shape, loaded.gate.idf))
    assert np.allclose(before, after, atol=0.02)  # float16 storage


def test_a_check_file_without_a_gate_still_loads_and_decides_by_the_check_alone(trained):
    model, _, _ = trained
    model_without = load_check(model.to_bytes())
    model_without.gate = None
    loaded = load_check(model_without.to_bytes())
    assert loaded.gate is None
    assert loaded.stands(AUDIT, loaded.threshold(AUDIT), 0.0)


def test_shipped_checks_have_their_gates():
    for language in ("en", "zh"):
        check = load_check(shipped_check_path(language))
        assert check.gate is not None, language
        assert check.gate.thresholds, language
