"""Offline engine on real contracts: every contract drafted, every flagged passage settled."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

pytestmark = [pytest.mark.django_db, pytest.mark.cuad]


def test_every_sampled_cuad_contract_gets_a_draft_and_verified_passages(cuad_dir, capsys):
    rows = [json.loads(line) for line in (cuad_dir / "labels.jsonl").open()]
    sample = [str(cuad_dir / row["txt"]) for row in sorted(rows, key=lambda r: r["id"])[::17]]
    try:
        call_command("review", *sample, "--engine", "offline")
    except SystemExit as exit_:
        assert exit_.code == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(records) == len(sample)
    flagged_total = 0
    for record in records:
        assert record["status"] == "INGESTED", record["error"]
        assert record["draft"]["engine"] == "offline"
        assert record["draft"]["status"] == "COMPLETE"
        flagged = [p for p in record["passages"] if p["trigger_state"] == "PENDING"]
        flagged_total += len(flagged)
        for passage in flagged:
            assert passage["verification"]["outcome"] in {
                "CONFIRMED",
                "REJECTED",
                "NEEDS_HUMAN_REVIEW",
            }
            assert passage["state"] == passage["verification"]["outcome"]
        assert all(p["state"] != "PENDING" for p in record["passages"])
    assert flagged_total >= 10 * len(records)
