"""Rendering the three review exports of a large review (no database: a synthetic model).

    .venv/bin/python benchmarks/bench_exports.py [--passages 2000] [--issues 600]

Target: each format of a 2,000-passage review with 600 issues renders in at most 5 s
(CPU time is reported next to wall time because a shared machine inflates the latter).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TARGET_S = 5.0


def synthetic_export(passages: int, issues: int):
    from reviewapp.reviews.exports.model import (
        DraftPart,
        Issue,
        LawyerPart,
        Match,
        PassagePart,
        ReviewExport,
        VerificationPart,
    )
    from reviewapp.text.facts.model import Fact

    clause = "Neither party may assign this Agreement without consent; 任何一方不得转让本合同。 "
    parts = [
        PassagePart(
            n,
            n,
            f"{n}.",
            f"Clause {n}",
            1 + n // 40,
            n * 400,
            n * 400 + 390,
            "REJECTED",
            clause * 4,
        )
        for n in range(passages)
    ]
    now = datetime.now(UTC)
    verification = VerificationPart(
        "DONE",
        "NEEDS_HUMAN_REVIEW",
        "offline",
        "offline",
        "high",
        "Why " * 40,
        "",
        "Redline " * 20,
        "",
        "NO_OFFLINE_VERDICT",
        now,
    )
    lawyer = LawyerPart("DONE", "reject", "=No. " * 10, "lee", now, "lee")
    rows = [
        Issue(
            parts[(n * 3) % passages],
            f"en.rule.{n % 40}",
            (f"en.rule.{n % 40}",),
            "Anti-Assignment",
            "high",
            "verify",
            "Question? " * 10,
            (Match(0, 6, "assign"),),
            verification,
            lawyer,
        )
        for n in range(issues)
    ]
    rows.sort(key=lambda issue: issue.passage.index)
    parties = Fact(name="Parties", value=[{"name": "A"}, {"name": "B"}], display="A and B")
    draft = DraftPart(
        "offline",
        "COMPLETE",
        (),
        "Summary. " * 50,
        "Summary. " * 50,
        {"Parties": parties},
        [],
        [],
        "",
    )
    return ReviewExport(
        1,
        "BLOCKED",
        "offline",
        "bench@1",
        now,
        1,
        "bench.pdf",
        "Matter",
        "Org",
        "en",
        "Service",
        passages // 40,
        {"REJECTED": passages},
        draft,
        rows,
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--passages", type=int, default=2000)
    parser.add_argument("--issues", type=int, default=600)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewapp.settings.local")
    import django

    django.setup()
    from reviewapp.reviews.exports.formats import FORMATS

    export = synthetic_export(args.passages, args.issues)
    missed = []
    # The review's own formats; the redlined contract (redline.docx, bench_redline) needs the
    # uploaded file, which this synthetic review has not.
    for name, export_format in FORMATS.items():
        if name.startswith("redline"):
            continue
        wall, cpu = time.perf_counter(), time.process_time()
        size = len(export_format.render(export))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"{name:<5} {size / 1024:>8.0f} KiB  wall {wall:6.2f} s  cpu {cpu:6.2f} s")
        if cpu > TARGET_S:
            missed.append(name)
    verdict = "missed " + ", ".join(missed) if missed else "met"
    print(f"target: each format at most {TARGET_S} s CPU: {verdict}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
