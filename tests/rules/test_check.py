"""The second-stage check: training, the artefact (loaded without pickle), thresholds chosen for
recall, its explanation, and what it does to a real contract's first-stage hits."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from reviewapp.rules.services import DEFAULTS_DIR
from reviewapp.text.check import shipped_check_path
from reviewapp.text.check import training as check_training
from reviewapp.text.check.apply import check_hits
from reviewapp.text.check.features import Candidate
from reviewapp.text.check.model import CheckFileInvalid, load_check
from reviewapp.text.check.training import CheckExample, choose_thresholds
from reviewapp.text.engine import RuleError, compile_playbook, load_playbook, load_playbook_data
from reviewapp.text.router import shipped_router_path
from reviewapp.text.router.flags import merge_hits, router_scan
from reviewapp.text.router.model import load_router
from reviewapp.text.segmentation import segment


def _example(n: int, *, clause: bool) -> CheckExample:
    """A document of two flagged passages: an audit clause (when ``clause``) and a notice."""
    words = ["w:audit", "w:books", "w:records", "h:audit"] if clause else ["w:notice", "w:mail"]
    candidates = [
        Candidate(
            row=0, category="Audit Rights", rule_ids=("en.audit",), secondary=False, hard=False
        ),
        Candidate(
            row=1,
            category="Audit Rights",
            rule_ids=("en.audit.context",),
            secondary=True,
            hard=False,
        ),
    ]
    return CheckExample(
        id=f"doc-{n}",
        passages=2,
        candidates=candidates,
        text=[
            [f"Audit Rights|{w}" for w in words],
            ["Audit Rights|w:notice", "Audit Rights|w:fax"],
        ],
        shape=[["kind:rule", "rule:en.audit"], ["kind:secondary", "rule:en.audit.context"]],
        target=np.array([clause, False]),
        judged=np.array([True, True]),
        clauses=[("Audit Rights", [0])] if clause else [],
        labelled_rows={0} if clause else set(),
        rejected_rows=set(),
    )


@pytest.fixture(scope="module")
def trained():
    examples = [_example(n, clause=n % 3 != 0) for n in range(30)]
    model, report = check_training.train(examples, folds=3, recall=0.9)
    return model, report, examples


def test_training_learns_the_clause_from_the_secondary_noise(trained):
    model, report, _ = trained
    assert report["checked"]["passage_precision"] > report["first_stage"]["passage_precision"]
    assert report["checked"]["recall"] >= 0.85
    assert 0 < model.threshold("Audit Rights") < 1
    assert model.meta["cross_validated"]["checked"]["items"] < report["first_stage"]["items"]


def test_artefact_round_trips_without_pickle(trained, tmp_path):
    model, _, examples = trained
    path = tmp_path / "check.npz"
    model.save(path)
    with np.load(path, allow_pickle=False) as arrays:  # plain arrays only: no code runs
        header = json.loads(arrays["header"].tobytes())
    assert header["format"] == "clausewise.check/1"
    loaded = load_check(path)
    from reviewapp.text.check.model import feature_matrix

    example = examples[1]
    before = model.probabilities(feature_matrix(example.text, example.shape, model.idf))
    after = loaded.probabilities(feature_matrix(example.text, example.shape, loaded.idf))
    assert np.allclose(before, after, atol=0.02)  # float16 storage
    assert loaded.thresholds == pytest.approx(model.thresholds)


def test_a_file_that_needs_pickle_is_refused(tmp_path):
    buffer = io.BytesIO()
    np.savez(buffer, header=np.array([{"format": "clausewise.check/1"}], dtype=object))
    with pytest.raises(CheckFileInvalid):
        load_check(buffer.getvalue())
    with pytest.raises(CheckFileInvalid):
        load_check(b"not a model")


def test_explanation_names_the_weighing_features(trained):
    model, _, examples = trained
    from reviewapp.text.check.model import feature_matrix

    example = examples[1]
    matrix = feature_matrix(example.text, example.shape, model.idf)
    tokens = [t + s for t, s in zip(example.text, example.shape, strict=True)]
    features = dict(model.explain(matrix, tokens)[0])
    assert features  # the audit words push up, the secondary rule's kind pushes down
    assert any(weight > 0 for weight in features.values())


def test_thresholds_keep_the_recall_asked_for():
    examples = [_example(n, clause=True) for n in range(10)]
    scores = [np.array([0.1 * (n + 1) - 0.05, 0.01]) for n in range(10)]  # 0.05 .. 0.95
    thresholds = choose_thresholds(examples, scores, recall=0.8, floor=0)
    kept = sum(score[0] >= thresholds["Audit Rights"] for score in scores)
    assert kept == 8  # the highest threshold that keeps 8 of the 10 clauses
    assert thresholds["Audit Rights"] > 0.01  # the secondary noise is dropped


def test_playbook_check_settings_are_validated():
    base = {"name": "p", "version": "1", "language": "en", "rules": [
        {"id": "en.x", "category": "Audit Rights", "severity": "low", "patterns": ["audit"]}
    ]}  # fmt: skip
    assert load_playbook_data({**base, "check": {"enabled": True}}).check.drop_human
    settings = load_playbook_data({**base, "check": {"enabled": True, "drop_human": False}}).check
    assert settings.enabled and not settings.drop_human
    assert not load_playbook_data(base).check.enabled
    with pytest.raises(RuleError, match="check"):
        load_playbook_data({**base, "check": {"enabled": "yes"}})
    with pytest.raises(RuleError, match="check"):
        load_playbook_data({**base, "check": {"threshold": 0.5}})


# fmt: off
CONTRACT = """1. Definitions. "Products" means the goods listed in Exhibit A.

2. Audit. Distributor shall keep complete and accurate books and records of all sales of the Products, and Supplier may, upon thirty days notice, inspect and audit such books and records during normal business hours once each calendar year.

3. Notices. All notices under this Agreement shall be in writing and delivered by courier or by registered mail to the addresses set out above.

4. Assignment. Distributor shall not assign or transfer this Agreement or any of its rights hereunder without the prior written consent of Supplier.
"""  # noqa: E501
# fmt: on


@pytest.fixture(scope="module")
def shipped():
    compiled = compile_playbook(load_playbook(DEFAULTS_DIR / "commercial-en.yaml"))
    return compiled, load_router(shipped_router_path("en")), load_check(shipped_check_path("en"))


def _checked(compiled, router, check, text):
    segments = segment(text)
    from reviewapp.text.engine import scan

    hits = scan(compiled, text, segments)
    scanned = router_scan(compiled, router, text, segments, hits)
    hits = merge_hits(compiled, hits, scanned.hits)
    return segments, hits, check_hits(compiled, check, segments, hits, scanned)


def test_shipped_check_keeps_real_clauses_and_says_why(shipped):
    compiled, router, check = shipped
    segments, _, checked = _checked(compiled, router, check, CONTRACT)
    index = {s.text.split(".")[1].strip(): s.index for s in segments if "." in s.text}
    audit = checked[(index["Audit"], "Audit Rights")]
    assignment = checked[(index["Assignment"], "Anti-Assignment")]
    assert audit.stands and assignment.stands
    assert audit.score >= audit.threshold
    assert audit.features  # the features that weighed most, for the "why" toggle
    on_audit = [c for (i, _), c in checked.items() if i == index["Audit"]]
    # The audit clause keeps its own category; the categories only secondary rules or the
    # router's near-threshold names attached there are mostly dropped.
    assert sum(c.stands for c in on_audit) < len(on_audit) or len(on_audit) == 1


def test_check_off_in_the_playbook_drops_nothing(shipped):
    _, router, check = shipped
    source = (DEFAULTS_DIR / "commercial-en.yaml").read_text(encoding="utf-8")
    off = compile_playbook(
        load_playbook_data(
            _yaml(source.replace("check:\n  enabled: true", "check:\n  enabled: false"))
        )
    )
    _, hits, checked = _checked(off, router, check, CONTRACT)
    assert hits and checked == {}


def test_hard_and_kept_human_categories_always_stand(shipped):
    compiled, router, check = shipped
    source = (DEFAULTS_DIR / "commercial-en.yaml").read_text(encoding="utf-8")
    keep_human = compile_playbook(
        load_playbook_data(_yaml(source.replace("drop_human: true", "drop_human: false")))
    )
    text = (
        "7. Liability. The limitations of liability in this Agreement shall not apply to a "
        "party's breach of its confidentiality obligations, and each party shall remain "
        "liable for all damages.\n"
    )
    _, hits, checked = _checked(keep_human, router, check, text)
    human = {h.category for h in hits if h.action == "human" and keep_human.routes(h.rule_id)}
    assert human, "the playbook's human rule should fire on this clause"
    for (_, category), result in checked.items():
        if category in human:
            assert result.stands and result.kept_because == "human-rule"


def _yaml(source: str):
    from reviewapp.text.engine.bounded_yaml import load_bounded

    return load_bounded(source)
