"""benchmarks/bench_learning.py on a few CUAD contracts: the simulated lawyers decide each
item per category and flag what no item raised, the organisation retrains on those labels
(false flags among them), and the score contracts are reviewed before and after."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CUAD = ROOT.parent / "shared" / "data" / "cuad"
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_learning import format_result, learning_run, split_halves  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def shortest(count: int) -> list[str]:
    """The shortest contracts with a few labelled clauses (not only names and dates)."""
    rows = [json.loads(line) for line in (CUAD / "labels.jsonl").read_text().splitlines() if line]
    with open(CUAD / "categories.csv", encoding="utf-8") as listing:
        clauses = {r["category"] for r in csv.DictReader(listing) if r.get("kind") == "clause"}
    rows = [row for row in rows if len(set(row["labels"]) & clauses) >= 9]
    rows.sort(key=lambda row: (CUAD / row["txt"]).stat().st_size)
    return [json.dumps(row) for row in rows[:count]]


@pytest.fixture
def halves(tmp_path):
    if not (CUAD / "labels.jsonl").is_file():
        pytest.skip(f"bench_learning needs the CUAD contracts at {CUAD} (absent here)")
    few = tmp_path / "few"
    few.mkdir()
    (few / "labels.jsonl").write_text("\n".join(shortest(20)) + "\n")
    for row in map(json.loads, shortest(20)):  # the texts, where split_halves looks for them
        target = few / row["txt"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(CUAD / row["txt"])
    (few / "categories.csv").write_bytes((CUAD / "categories.csv").read_bytes())
    train, score = tmp_path / "train", tmp_path / "score"
    split_halves(few, train, score, limit=10)
    score_rows = (score / "labels.jsonl").read_text().splitlines()
    (score / "labels.jsonl").write_text("\n".join(score_rows[:3]) + "\n")
    return train, score


def test_the_learning_benchmark_decides_flags_retrains_and_scores(halves):
    from reviewapp.reviews.models import PassageLabel
    from reviewapp.rules.models import RouterVersion

    train, score = halves
    result = learning_run(train=train, score=score, base=train, folds=3, log=lambda line: None)
    decided = result["decided"]
    assert decided["items"] > 0 and decided["accept"] > 0
    assert decided["not_this"] > 0 and decided["flags"] > 0, str(decided)
    kinds = set(PassageLabel.objects.values_list("kind", flat=True))
    assert {"not_this", "flagged"} <= kinds or {"not_this", "accept"} <= kinds
    version = RouterVersion.objects.get(organisation__isnull=False)
    assert version.is_active and version.check_artefact is not None
    assert result["before"]["contracts"] == result["after"]["contracts"] == 3
    assert result["retraining"]["decisions"]["false_flags"] > 0
    table = format_result(result)
    assert "passage precision" in table and "false flags" in table
