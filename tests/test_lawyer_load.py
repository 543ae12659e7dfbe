"""benchmarks/lawyer_load.py: the figures of what reaches a lawyer, read from review records."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from lawyer_load import lawyer_load  # noqa: E402


@dataclass
class Doc:
    id: str
    text: str
    labels: dict


def _passage(start, end, state, categories, trigger):
    return {
        "start": start,
        "end": end,
        "state": state,
        "categories": categories,
        "trigger_categories": trigger,
    }


def test_figures_count_items_precision_and_recall_with_the_category_standing():
    doc = Doc("nda", "x" * 400, {"Audit Rights": [[10, 50]], "Insurance": [[210, 240]]})
    record = {
        "document": "/uploads/nda.txt",
        "chars": 400,
        "passages": [
            _passage(0, 100, "NEEDS_HUMAN_REVIEW", ["Audit Rights"], ["Audit Rights", "Insurance"]),
            _passage(100, 200, "NEEDS_HUMAN_REVIEW", ["Insurance"], ["Insurance"]),
            _passage(200, 300, "CONFIRMED", [], ["Insurance"]),  # settled by the check
            _passage(300, 400, "CONFIRMED", [], []),
        ],
    }
    figures = lawyer_load([record], {"nda": doc}, {"Audit Rights", "Insurance"})
    assert figures["contracts"] == 1 and figures["labelled clauses"] == 2
    assert figures["recall (category standing)"] == 0.5  # Insurance's item was settled
    assert figures["first stage recall"] == 1.0
    assert figures["first stage routed share"] == 0.75
    assert figures["items per contract"] == 2 and figures["labelled passages per contract"] == 2
    assert figures["passage precision"] == 0.5
    assert figures["category precision"] == 0.5
    assert figures["categories per item"] == 1.0
