"""The PostgreSQL benchmarks still run against the current schema (`make bench` is not part of
the test run): each on a few rows, in a database of its own on the test server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SMALL = {
    "bench_queue.py": ["--items", "200", "--contracts", "4", "--runs", "2"],
    "bench_grid.py": ["--contracts", "20", "--runs", "2"],
    "bench_reports.py": ["--contracts", "60", "--passages", "6000", "--runs", "2"],
    "bench_review_page.py": [
        "--passages",
        "30",
        "--large",
        "60",
        "--clients",
        "2",
        "--requests",
        "2",
    ],
}


@pytest.mark.parametrize("script", sorted(SMALL))
def test_a_postgres_benchmark_runs_on_a_few_rows(script):
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        pytest.skip("the PostgreSQL benchmarks need DATABASE_URL to name a PostgreSQL server")
    if script == "bench_review_page.py" and not (ROOT.parent / "shared/data/cuad/txt").is_dir():
        pytest.skip("bench_review_page reads the CUAD texts from ../shared/data/cuad")
    env = {**os.environ, "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/7")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *SMALL[script]],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode in (0, 1) and "Traceback" not in output, output[-4000:]
    assert "skipped" not in done.stdout, done.stdout
