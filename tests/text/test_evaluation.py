from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reviewapp.text.engine import SimplePassage, load_playbook_data
from reviewapp.text.evaluation import evaluate, format_table

CUAD = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "cuad"
EN_PLAYBOOK = Path(__file__).resolve().parents[2] / "reviewapp/rules/playbooks/commercial-en.yaml"

PLAYBOOK = load_playbook_data(
    {
        "name": "tiny",
        "version": "1",
        "language": "en",
        "rules": [
            {"id": "t.assign", "category": "Anti-Assignment", "patterns": [r"\bassign"]},
            {"id": "t.audit", "category": "Audit Rights", "patterns": [r"\baudit"]},
        ],
    }
)

DOC_A = [
    "Neither party may assign this Agreement without consent.",  # Anti-Assignment, caught
    "The Supplier shall maintain product liability insurance.",  # Insurance, missed
    "Assignment notices go to the address above.",  # flagged, not a labelled clause
]
DOC_B = [
    "Licensee may not assign its rights.",  # Anti-Assignment, caught
    "Fees are due monthly.",
]


def paragraphs(text: str) -> list[SimplePassage]:
    return [
        SimplePassage(i, m.start(), m.end())
        for i, m in enumerate(re.finditer(r"[^\n]+(?:\n[^\n]+)*", text))
    ]


def span(paragraphs_: list[str], i: int) -> list[int]:
    start = sum(len(p) + 2 for p in paragraphs_[:i])
    return [start, start + len(paragraphs_[i])]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "txt").mkdir()
    rows = [
        ("a", DOC_A, {"Anti-Assignment": [span(DOC_A, 0)], "Insurance": [span(DOC_A, 1)]}),
        ("b", DOC_B, {"Anti-Assignment": [span(DOC_B, 0)]}),
    ]
    with open(tmp_path / "labels.jsonl", "w", encoding="utf-8") as handle:
        for name, paras, labels in rows:
            (tmp_path / "txt" / f"{name}.txt").write_text("\n\n".join(paras), encoding="utf-8")
            row = {"id": name, "type": "License", "txt": f"txt/{name}.txt", "labels": labels}
            handle.write(json.dumps(row) + "\n")
    return tmp_path


def test_hand_computed_recall_precision_and_routing(folder):
    report = evaluate(folder, PLAYBOOK, segmenter=paragraphs)

    assignment = report["categories"]["Anti-Assignment"]
    assert (assignment["labelled"], assignment["caught"], assignment["recall"]) == (2, 2, 1.0)
    assert assignment["flagged_passages"] == 3
    assert assignment["precision"] == pytest.approx(2 / 3)
    insurance = report["categories"]["Insurance"]
    assert (insurance["labelled"], insurance["caught"], insurance["recall"]) == (1, 0, 0.0)
    assert insurance["precision"] is None  # never flagged

    assert report["overall_recall"] == pytest.approx(2 / 3)
    assert report["macro_recall"] == pytest.approx(0.5)
    doc_a, doc_b = "\n\n".join(DOC_A), "\n\n".join(DOC_B)
    routed_a = len(DOC_A[0]) + len(DOC_A[2])
    routed_b = len(DOC_B[0])
    assert report["routed_share_pooled"] == pytest.approx(
        (routed_a + routed_b) / (len(doc_a) + len(doc_b))
    )
    assert report["routed_share_mean"] == pytest.approx(
        (routed_a / len(doc_a) + routed_b / len(doc_b)) / 2
    )
    assert report["min_recall_10"] is None  # no category has 10 labels


def test_categories_come_from_the_labels_without_a_categories_file(folder):
    report = evaluate(folder / "labels.jsonl", PLAYBOOK, segmenter=paragraphs)
    assert list(report["categories"]) == ["Anti-Assignment", "Insurance"]


def test_categories_file_limits_scoring_to_clause_categories(folder):
    (folder / "categories.csv").write_text(
        "category,kind,description,answer_format,group\n"
        "Parties,fact,Who signed,Names,-\n"
        "Anti-Assignment,clause,Consent to assign,Yes/No,3\n",
        encoding="utf-8",
    )
    report = evaluate(folder, PLAYBOOK, segmenter=paragraphs)
    assert list(report["categories"]) == ["Anti-Assignment"]
    assert report["overall_recall"] == 1.0


def test_keep_missed_lists_the_missed_clause_and_the_false_alarm(folder):
    report = evaluate(folder, PLAYBOOK, segmenter=paragraphs, keep_missed=True)
    [missed] = report["categories"]["Insurance"]["missed"]
    assert missed["text"] == DOC_A[1]
    [alarm] = report["false_alarms"]
    assert (alarm["category"], alarm["text"]) == ("Anti-Assignment", DOC_A[2])


def test_report_is_json_and_the_table_shows_the_totals(folder):
    report = evaluate(folder, PLAYBOOK, segmenter=paragraphs)
    json.dumps(report)
    table = format_table(report)
    assert "overall recall 0.667 (2/3)" in table
    assert "Anti-Assignment" in table


@pytest.fixture(scope="module")
def cuad_report() -> dict:
    if not (CUAD / "labels.jsonl").exists():
        pytest.skip(f"CUAD dev set not found at {CUAD}")
    return evaluate(CUAD, EN_PLAYBOOK)


@pytest.mark.cuad
def test_default_playbook_keeps_routing_sparse_and_recall_from_regressing(cuad_report):
    table = format_table(cuad_report)
    assert cuad_report["documents"] >= 300, table
    assert cuad_report["routed_share_pooled"] <= 0.20, table
    # Rules alone on the 311 dev contracts (144 of them never tuned on): 0.782 at a routed
    # share of 0.184, after "minimum"/"unlimited" stopped routing alone and bare definitions
    # stopped routing (0.787 at 0.190 before).
    assert cuad_report["overall_recall"] >= 0.775, table


@pytest.fixture(scope="module")
def shipped_router():
    from reviewapp.text.router import shipped_router_path
    from reviewapp.text.router.model import load_router

    return load_router(shipped_router_path())


def test_shipped_router_records_its_held_out_figures(shipped_router):
    """Measured by train_router: 5 folds by document, thresholds chosen on the other half."""
    held_out = shipped_router.meta["cross_validated"]
    assert held_out["both"]["recall"] >= 0.87
    assert held_out["both"]["routed_share"] <= 0.25
    assert held_out["both"]["recall"] > held_out["rules"]["recall"] + 0.05
    assert shipped_router.meta["documents"] >= 300
    assert shipped_router.thresholds


@pytest.mark.cuad
def test_default_playbook_with_the_shipped_router_on_its_own_training_contracts(
    cuad_report, shipped_router
):
    """In-sample, so no estimate for unseen contracts (see the test above): it fails when the
    shipped model, the playbook's router setting or the flags' path stop working together."""
    report = evaluate(CUAD, EN_PLAYBOOK, router=shipped_router)
    table = format_table(report)
    assert report["overall_recall"] >= cuad_report["overall_recall"] + 0.10, table
    assert report["routed_share_pooled"] <= 0.27, table


@pytest.mark.xfail(
    reason="issue 11's target (recall 0.90 at a routed share of 0.25, every category with 10 "
    "labels at 0.80) not reached: held out, rules and router give 0.882 at 0.243, lowest "
    "Price Restrictions 0.67; rules alone 0.782 at 0.184 (train_router on the 311 dev "
    "contracts)",
    strict=True,
)
def test_rules_and_router_meet_the_targets_on_contracts_they_did_not_see(shipped_router):
    both = shipped_router.meta["cross_validated"]["both"]
    assert both["recall"] >= 0.90 and both["routed_share"] <= 0.25
    assert both["lowest_frequent"]["recall"] >= 0.80
