"""The learned router: training, the model file, thresholds, explanations, firings in a review."""

from __future__ import annotations

import json

import numpy as np
import pytest

from reviewapp.text.engine import compile_playbook, load_playbook_data, passage_states, scan
from reviewapp.text.engine.model import RuleError, router_rule_id
from reviewapp.text.router import training
from reviewapp.text.router.features import PassageView
from reviewapp.text.router.flags import merge_hits, router_hits
from reviewapp.text.router.model import RouterFileInvalid, load_router
from reviewapp.text.segmentation import segment
from tests.rules.router_corpus import (
    BOILERPLATE,
    CAP,
    CAP_CLAUSES,
    MFN,
    MFN_CLAUSES,
    PLAYBOOK,
    corpus,
)


@pytest.fixture(scope="module")
def trained():
    examples = training.examples_from_documents(
        corpus(), [MFN, CAP], scanner=None, segmenter=segment
    )
    model = training.fit(examples, [MFN, CAP], meta={"name": "test-router"})
    model.thresholds = {MFN: 0.5, CAP: 0.5}
    model.meta["attach_margin"] = 1.5
    return model, examples


def test_trained_model_flags_unseen_wording_and_not_boilerplate(trained):
    model, _ = trained
    unseen = PassageView(
        text="Seller shall give Purchaser prices no less advantageous than those offered to any "
        "other purchaser."
    )
    dull = PassageView(text="This Agreement may be executed in counterparts.")
    probabilities = model.probabilities([unseen, dull])
    column = model.categories.index(MFN)
    assert probabilities[0, column] > 0.5 > probabilities[1, column]


def test_flags_respect_thresholds_and_explain_with_words(trained):
    model, _ = trained
    passage = PassageView(text=MFN_CLAUSES[2])
    flags = model.flags([passage])
    assert [f.category for f in flags] == [MFN]
    assert flags[0].score >= 0.5
    assert any(word in {"lowest", "prices", "other", "distributor"} for word in flags[0].words)
    assert model.flags([passage], thresholds={MFN: 0.9999}) == []


def test_model_file_round_trip_gives_the_same_scores(trained, tmp_path):
    model, examples = trained
    path = tmp_path / "router.npz"
    model.save(path)
    loaded = load_router(path)
    views = [view for e in examples[:4] for view in e.views]
    assert np.allclose(model.probabilities(views), loaded.probabilities(views), atol=2e-3)
    assert loaded.thresholds == model.thresholds
    assert loaded.categories == model.categories


def test_a_file_that_is_not_a_router_model_is_refused(tmp_path):
    pickled = tmp_path / "evil.npz"
    np.savez(pickled, header=np.array([object()], dtype=object))
    with pytest.raises(RouterFileInvalid):
        load_router(pickled)
    with pytest.raises(RouterFileInvalid):
        load_router(b"not a zip at all")


def test_router_flags_are_rule_hits_that_route_for_verification(trained):
    model, _ = trained
    compiled = compile_playbook(load_playbook_data(PLAYBOOK))
    text = f"1. {MFN_CLAUSES[0]}\n\n2. {BOILERPLATE[0]}\n"
    segments = segment(text)
    hits = scan(compiled, text, segments)
    assert hits == []  # no pattern knows this wording
    found = router_hits(compiled, model, text, segments, hits)
    assert [(h.rule_id, h.action) for h in found] == [(router_rule_id(MFN), "verify")]
    assert found[0].score is not None and found[0].words
    states = passage_states(segments, merge_hits(compiled, hits, found))
    assert states == ["PENDING", "CONFIRMED"]
    rule = compiled.compiled_rule(router_rule_id(MFN)).rule
    assert rule.question == "Is there a price-parity promise?" and rule.severity == "high"
    assert compiled.routes(router_rule_id(MFN))
    assert not compiled.routes(router_rule_id(MFN, context=True))


def test_playbook_thresholds_override_the_model_and_off_means_no_flags(trained):
    model, _ = trained
    text = f"1. {MFN_CLAUSES[1]}\n"
    segments = segment(text)
    strict = compile_playbook(
        load_playbook_data(
            {**PLAYBOOK, "version": "2", "router": {"enabled": True, "thresholds": {MFN: 0.9999}}}
        )
    )
    assert router_hits(strict, model, text, segments, []) == []
    off = compile_playbook(load_playbook_data({**PLAYBOOK, "version": "3", "router": {}}))
    assert router_hits(off, model, text, segments, []) == []
    assert router_rule_id(MFN) not in off.by_id


def test_a_routed_passage_is_also_named_by_a_near_threshold_category(trained):
    model, _ = trained
    compiled = compile_playbook(
        load_playbook_data(
            {**PLAYBOOK, "version": "4", "router": {"enabled": True, "thresholds": {CAP: 0.97}}}
        )
    )
    text = f"1. Limitation of liability. {CAP_CLAUSES[0]}\n"
    segments = segment(text)
    hits = scan(compiled, text, segments)
    probability = model.probabilities(
        [PassageView(text=segments[0].text if hasattr(segments[0], "text") else text.strip())]
    )[0, model.categories.index(CAP)]
    assert hits and probability < 0.97
    found = router_hits(compiled, model, text, segments, hits)
    # The rule already named Cap On Liability: the router adds nothing for it.
    assert all(h.category != CAP for h in found)


@pytest.mark.parametrize(
    "router, problem",
    [
        ({"enabled": "yes"}, "enabled"),
        ({"enabled": True, "thresholds": {MFN: 1.5}}, "thresholds"),
        ({"enabled": True, "thresholds": [0.3]}, "thresholds"),
        ({"enabled": True, "colour": "red"}, "router"),
    ],
)
def test_router_settings_are_validated(router, problem):
    with pytest.raises(RuleError, match=problem):
        load_playbook_data({**PLAYBOOK, "router": router})


def test_thresholds_are_chosen_within_the_budget_and_measured_out_of_fold(trained):
    _, examples = trained
    scores = training.out_of_fold(examples, [MFN, CAP], folds=3)
    thresholds = training.choose_thresholds(examples, scores, budget=0.3)
    report = training.measure(examples, scores, thresholds, use_rules=False)
    assert set(thresholds) <= {MFN, CAP}
    assert report["routed_share"] <= 0.3 + 0.1  # one step past the budget at most
    assert report["recall"] >= 0.8
    held_out = training.cross_validated_report(examples, scores, budget=0.3)
    assert set(held_out) == {"rules", "router", "both"}
    assert held_out["rules"]["recall"] == 0.0  # no rules were given
    assert json.dumps(held_out)  # JSON-able, for the command's --format json


def test_feature_index_is_the_column_the_hasher_gives():
    from reviewapp.text.router.model import feature_index, hasher

    tokens = ["w:royalty", "w:most favored", "h:pricing", "n:lowest", "w:费用"]
    matrix = hasher().transform([[token] for token in tokens])
    assert [feature_index(token) for token in tokens] == [row.indices[0] for row in matrix]


def test_empty_passages_score_like_any_other_and_do_not_break_the_weighing(trained):
    model, _ = trained
    probabilities = model.probabilities([PassageView(text=""), PassageView(text=MFN_CLAUSES[0])])
    assert probabilities.shape == (2, 2) and np.isfinite(probabilities).all()
    probabilities = model.probabilities([PassageView(text=MFN_CLAUSES[0]), PassageView(text="")])
    assert np.isfinite(probabilities).all()
