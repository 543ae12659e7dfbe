"""`make bench`: every benchmark in turn (speed and memory targets live here, not in tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = [
    "bench_ingest.py",
    "bench_segment.py",
    "bench_scan.py",
    "bench_router.py",
    "bench_check.py",
    "bench_model.py",
    "bench_model_batch.py",
    "bench_sockets.py",
    "bench_exports.py",
    "bench_redline.py",
    "bench_reports.py",
    "bench_review_page.py",
    "bench_queue.py",
    "bench_audit_verify.py",
    "bench_grid.py",
    "facts_accuracy.py",
    "bench_intake.py",
]


def main() -> int:
    failed = []
    for name in BENCHMARKS:
        print(f"\n=== {name} ===", flush=True)
        code = subprocess.call([sys.executable, str(HERE / name)], cwd=HERE.parent)
        if code:
            failed.append(name)
    if failed:
        print(f"\nMissed targets or failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
