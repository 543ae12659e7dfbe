"""How far can passage routing go on CUAD? Rules against a learned scorer, at equal routed share.

    .venv/bin/python benchmarks/routing_frontier.py [--cuad DIR] [--folds 5] [--quick]

The trigger rules decide which passages are verified. This script asks whether any passage
scorer learnt from the lawyers' labels themselves would do much better: a logistic regression
over the passage's words and word pairs, its character n-grams, its heading, its neighbours and
the rules that fired on it, trained and scored by document folds (a document is never scored by
a model that saw it). It routes the highest-scoring passages until a routed share is reached and
reports the recall there, next to the shipped rules and to the oracle that routes exactly the
labelled passages.

Recall here ignores categories (a clause counts once any passage overlapping it is routed), so
it is an upper bound for the scorer; the rules' category-aware recall is printed too.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_scan import CUAD, PLAYBOOK  # noqa: E402

from reviewapp.text.contract_type import detect_contract_type  # noqa: E402
from reviewapp.text.engine import compile_playbook, load_playbook, scan  # noqa: E402
from reviewapp.text.evaluation import evaluate, load_documents  # noqa: E402
from reviewapp.text.segmentation import segment  # noqa: E402

SHARES = (0.15, 0.20, 0.25, 0.30, 0.35, 0.40)


@dataclass
class Row:
    doc: int
    text: str
    heading: str
    rules: str
    neighbours: str
    chars: int
    labelled: bool
    routed: bool


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cuad", type=Path, default=CUAD)
    parser.add_argument("--playbook", type=Path, default=PLAYBOOK)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="words only, no character n-grams")
    args = parser.parse_args()
    if not (args.cuad / "labels.jsonl").exists():
        print(f"no labelled contracts at {args.cuad}")
        return 2
    documents, categories = load_documents(args.cuad)
    compiled = compile_playbook(load_playbook(args.playbook))
    rows, clauses, total = _passages(documents, categories, compiled)
    scores = _cross_validated_scores(rows, args.folds, quick=args.quick)
    report = evaluate(documents, compiled, segmenter=segment, categories=categories)
    rules_share = sum(r.chars for r in rows if r.routed) / total
    oracle_share = sum(r.chars for r in rows if r.labelled) / total
    print(f"{len(documents)} documents, {len(clauses)} labelled clauses, {len(rows)} passages\n")
    print(f"oracle (route exactly the labelled passages): share {oracle_share:.3f}")
    print(
        f"shipped rules: share {rules_share:.3f}  recall any category "
        f"{_recall(clauses, lambda i: rows[i].routed):.3f}  "
        f"with category {report['overall_recall']:.3f}"
    )
    print(f"\nlearned scorer ({args.folds}-fold by document), recall any category:")
    order = sorted(range(len(rows)), key=lambda i: -scores[i])
    for share in SHARES:
        routed = _top_share(order, rows, share * total)
        print(f"  share {share:.2f}  recall {_recall(clauses, routed.__contains__):.3f}")
    return 0


def _passages(documents, categories, compiled):
    rows: list[Row] = []
    clauses: list[list[int]] = []
    total = 0
    primary = {rule.id for rule in compiled.playbook.rules if not rule.only_with}
    for number, doc in enumerate(documents):
        segments = segment(doc.text)
        hits = scan(compiled, doc.text, segments, contract_type=detect_contract_type(doc.text))
        fired = defaultdict(list)
        for hit in hits:
            fired[hit.segment_index].append(hit.rule_id)
        spans = [span for category in categories for span in doc.labels.get(category, [])]
        first = len(rows)
        texts = [doc.text[s.start : s.end] for s in segments]
        for i, s in enumerate(segments):
            rows.append(
                Row(
                    doc=number,
                    text=texts[i],
                    heading=s.heading or "none",
                    rules=" ".join(r.replace(".", "_") for r in fired[i]) or "none",
                    neighbours=" ".join(texts[max(0, i - 1) : i] + texts[i + 1 : i + 2]),
                    chars=s.end - s.start,
                    labelled=any(s.start < end and start < s.end for start, end in spans),
                    routed=any(r in primary for r in fired[i]),
                )
            )
        for start, end in spans:
            clauses.append(
                [first + i for i, s in enumerate(segments) if s.start < end and start < s.end]
            )
        total += len(doc.text)
    return rows, clauses, total


def _cross_validated_scores(rows: list[Row], folds: int, *, quick: bool) -> list[float]:
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    fields = [
        ("text", 1.0, {"ngram_range": (1, 2), "min_df": 3, "sublinear_tf": True}),
        ("heading", 1.0, {"min_df": 2}),
        ("rules", 1.0, {"token_pattern": r"\S+"}),
        ("neighbours", 0.5, {"min_df": 3, "sublinear_tf": True}),
    ]
    if not quick:
        char_options = {"analyzer": "char_wb", "ngram_range": (3, 5), "min_df": 5}
        fields.append(("text", 1.0, {**char_options, "sublinear_tf": True}))

    def features(fit: bool, chosen: list[Row], vectorisers):
        columns = []
        for (field, weight, _), vectoriser in zip(fields, vectorisers, strict=True):
            values = [getattr(row, field) for row in chosen]
            matrix = vectoriser.fit_transform(values) if fit else vectoriser.transform(values)
            columns.append(weight * matrix)
        return hstack(columns).tocsr()

    scores = [0.0] * len(rows)
    for fold in range(folds):
        train = [row for row in rows if row.doc % folds != fold]
        test = [i for i, row in enumerate(rows) if row.doc % folds == fold]
        vectorisers = [TfidfVectorizer(**options) for _, _, options in fields]
        model = LogisticRegression(C=4, max_iter=2000, class_weight="balanced")
        model.fit(features(True, train, vectorisers), [row.labelled for row in train])
        predicted = model.decision_function(features(False, [rows[i] for i in test], vectorisers))
        for i, value in zip(test, predicted, strict=True):
            scores[i] = float(value)
    return scores


def _top_share(order: list[int], rows: list[Row], budget: float) -> set[int]:
    routed: set[int] = set()
    used = 0
    for i in order:
        if used + rows[i].chars > budget:
            break
        routed.add(i)
        used += rows[i].chars
    return routed


def _recall(clauses: list[list[int]], routed) -> float:
    return sum(any(routed(i) for i in passages) for passages in clauses) / len(clauses)


if __name__ == "__main__":
    sys.exit(main())
