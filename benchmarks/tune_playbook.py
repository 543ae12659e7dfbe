"""Tuning aid: evaluate a playbook on CUAD, show missed clauses and false alarms per category.

    .venv/bin/python benchmarks/tune_playbook.py [--category "Audit Rights"] [--missed N]
        [--alarms N] [--split even|odd] [--seed 7]

``--split`` scores one half of a seeded random split, to check that rules tuned on one half
hold on the other.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_scan import CUAD, PLAYBOOK, segmenter  # noqa: E402

from reviewapp.text.evaluation import evaluate, format_table, load_documents  # noqa: E402


def split(documents, half: str, seed: int):
    order = sorted(documents, key=lambda d: d.id)
    random.Random(seed).shuffle(order)
    return order[0::2] if half == "even" else order[1::2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cuad", type=Path, default=CUAD)
    parser.add_argument("--playbook", type=Path, default=PLAYBOOK)
    parser.add_argument("--category", action="append", default=[])
    parser.add_argument("--missed", type=int, default=0)
    parser.add_argument("--alarms", type=int, default=0)
    parser.add_argument("--split", choices=["even", "odd"])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--width", type=int, default=400)
    args = parser.parse_args()
    documents, categories = load_documents(args.cuad)
    if args.split:
        documents = split(documents, args.split, args.seed)
    report = evaluate(
        documents, args.playbook, segmenter=segmenter(), categories=categories, keep_missed=True
    )
    print(
        format_table(
            {
                **report,
                "categories": {
                    k: v
                    for k, v in report["categories"].items()
                    if not args.category or k in args.category
                },
            }
        )
    )
    rng = random.Random(1)
    for category in args.category:
        missed = report["categories"][category]["missed"]
        print(f"\n=== missed {category}: {len(missed)}")
        for item in rng.sample(missed, min(args.missed, len(missed))):
            print(f"- [{item['doc'][:40]}] {' '.join(item['text'].split())[: args.width]}")
        alarms = [a for a in report["false_alarms"] if a["category"] == category]
        print(f"\n=== false alarms {category}: {len(alarms)}")
        for item in rng.sample(alarms, min(args.alarms, len(alarms))):
            print(f"- [{item['doc'][:40]}] {' '.join(item['text'].split())[: args.width]}")


if __name__ == "__main__":
    main()
