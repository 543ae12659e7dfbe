"""What reaches a lawyer, read from `manage.py review --format jsonl` against lawyers' labels.

    .venv/bin/python manage.py review DIR/txt --format jsonl > review.jsonl
    .venv/bin/python benchmarks/lawyer_load.py DIR review.jsonl

DIR is a labelled folder in the CUAD layout (``labels.jsonl``, ``categories.csv``); a review
record is matched to its labels by file name (``.txt`` or ``.pdf`` alike). An item is a passage
that ends ``NEEDS_HUMAN_REVIEW`` or ``REJECTED``. Printed, for the clause categories:

- recall: labelled clauses overlapped by an item on which their category stands (``categories``);
- the first stage's recall (``trigger_categories`` on any flagged passage) and routed share;
- items per contract against the passages lawyers labelled, passage precision (items overlapping
  a labelled clause), category precision (standing categories a lawyer labelled there) and
  categories per item.

Score only contracts the shipped router and check were not trained on (CUAD's held-out split,
or your own); on the dev contracts see ``evaluate_playbook --check cross-validate``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ITEM_STATES = {"NEEDS_HUMAN_REVIEW", "REJECTED"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("labels", type=Path, help="labelled folder (labels.jsonl)")
    parser.add_argument("review", type=Path, help="output of manage.py review --format jsonl")
    args = parser.parse_args()
    from reviewapp.text.evaluation import load_documents

    documents, categories = load_documents(args.labels)
    by_name = {Path(d.id).name: d for d in documents}
    records = [json.loads(line) for line in args.review.read_text().splitlines() if line.strip()]
    figures = lawyer_load(records, by_name, set(categories))
    for name, value in figures.items():
        print(f"{name:32} {value:.3f}" if isinstance(value, float) else f"{name:32} {value}")
    return 0


def lawyer_load(records: list[dict], by_name: dict, categories: set[str]) -> dict[str, object]:
    tally = dict.fromkeys(
        ("contracts", "clauses", "reached", "named", "items", "relevant", "standing", "right",
         "labelled_passages", "routed_chars", "chars"), 0
    )  # fmt: skip
    for record in records:
        doc = by_name.get(Path(record["document"]).stem)
        if doc is None or not record.get("passages"):
            continue
        tally["contracts"] += 1
        _tally_contract(tally, record["passages"], doc, categories)
        tally["chars"] += record.get("chars") or len(doc.text)
    n, items = max(tally["contracts"], 1), max(tally["items"], 1)
    return {
        "contracts": tally["contracts"],
        "labelled clauses": tally["clauses"],
        "recall (category standing)": tally["reached"] / max(tally["clauses"], 1),
        "first stage recall": tally["named"] / max(tally["clauses"], 1),
        "first stage routed share": tally["routed_chars"] / max(tally["chars"], 1),
        "items per contract": tally["items"] / n,
        "labelled passages per contract": tally["labelled_passages"] / n,
        "passage precision": tally["relevant"] / items,
        "category precision": tally["right"] / max(tally["standing"], 1),
        "categories per item": tally["standing"] / items,
    }


def _tally_contract(tally: dict, passages: list[dict], doc, categories: set[str]) -> None:
    clauses = [
        (category, start, end)
        for category, spans in doc.labels.items()
        if category in categories
        for start, end in spans
    ]

    def labelled(passage: dict) -> set[str]:
        return {c for c, s, e in clauses if passage["start"] < e and s < passage["end"]}

    items = [p for p in passages if p["state"] in ITEM_STATES]
    flagged = [p for p in passages if p.get("trigger_categories")]
    tally["routed_chars"] += sum(p["end"] - p["start"] for p in flagged)
    tally["labelled_passages"] += sum(1 for p in passages if labelled(p))
    for category, start, end in clauses:
        tally["clauses"] += 1
        here = [p for p in passages if p["start"] < end and start < p["end"]]
        tally["reached"] += any(p in items and category in p["categories"] for p in here)
        tally["named"] += any(category in p.get("trigger_categories", []) for p in here)
    for passage in items:
        found = labelled(passage)
        tally["items"] += 1
        tally["relevant"] += bool(found)
        tally["standing"] += len(passage["categories"])
        tally["right"] += len(set(passage["categories"]) & found)


if __name__ == "__main__":
    sys.exit(main())
