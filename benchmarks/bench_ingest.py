"""Extraction of every CUAD dev PDF through `extract_file`, one after another, in one process.

    .venv/bin/python benchmarks/bench_ingest.py [--limit N] [--cuad DIR] [--worst K]

Reports pages per second including the sandbox and the worker's start (target: at least 60),
each document's word recovery against its reference .txt (target: at least 99%), and failures.
Wall-clock speed depends on what else runs on the machine, so pages per CPU second (this process
plus the sandbox and its forks) is reported as well: the speed on an otherwise idle core.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reviewapp.text.extraction import (  # noqa: E402
    ExtractionError,
    ExtractionLimits,
    extract_file,
    sandbox,
)
from reviewapp.text.extraction.quality import word_recovery  # noqa: E402

CUAD = ROOT.parent / "shared" / "data" / "cuad"
TARGET_PAGES_PER_SECOND = 60
TARGET_RECOVERY = 0.99


@dataclass(frozen=True)
class Outcome:
    name: str
    seconds: float
    cpu_seconds: float  # of this process; the sandbox's is read at the end
    pages: int = 0
    recovery: float = 0.0
    error: str = ""


def main() -> None:
    arguments = _parse_arguments()
    contracts = _contracts(arguments.cuad)[: arguments.limit]
    limits = ExtractionLimits()
    outcomes = [_extract(arguments.cuad, contract, limits) for contract in contracts]
    # Only extract_file is timed, not the scoring against the reference texts.
    total_seconds = sum(outcome.seconds for outcome in outcomes)
    cpu_seconds = sum(outcome.cpu_seconds for outcome in outcomes) + _sandbox_cpu_seconds()
    _report(outcomes, total_seconds, cpu_seconds, arguments.worst)


def _parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N contracts")
    parser.add_argument("--cuad", type=Path, default=CUAD, help="the CUAD dev folder")
    parser.add_argument("--worst", type=int, default=5, help="list the K worst recoveries")
    return parser.parse_args()


def _contracts(cuad: Path) -> list[dict[str, str]]:
    with open(cuad / "labels.jsonl", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def _extract(cuad: Path, contract: dict[str, str], limits: ExtractionLimits) -> Outcome:
    name = Path(contract["pdf"]).name
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        document = extract_file(cuad / contract["pdf"], limits=limits)
    except ExtractionError as error:
        failure = f"{error.code}: {error.detail}"
        return Outcome(
            name, time.perf_counter() - started, time.process_time() - cpu_started, error=failure
        )
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    reference = (cuad / contract["txt"]).read_text(encoding="utf-8")
    recovery = word_recovery(document.text, reference)
    return Outcome(name, seconds, cpu_seconds, document.page_count, recovery)


def _sandbox_cpu_seconds() -> float:
    """CPU time of the warm worker and of the forks it has reaped (Linux /proc)."""
    pid = sandbox.worker_pid()
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, TypeError):
        return 0.0
    utime, stime, cutime, cstime = (int(field) for field in stat.rsplit(")", 1)[1].split()[11:15])
    return (utime + stime + cutime + cstime) / os.sysconf("SC_CLK_TCK")


def _report(outcomes: list[Outcome], total_seconds: float, cpu_seconds: float, worst: int) -> None:
    done = [outcome for outcome in outcomes if not outcome.error]
    pages = sum(outcome.pages for outcome in done)
    recoveries = [outcome.recovery for outcome in done]
    print(f"documents: {len(outcomes)}  extracted: {len(done)}  pages: {pages}")
    print(
        f"time: {total_seconds:.1f} s  pages/s: {pages / total_seconds:.1f} "
        f"(target >= {TARGET_PAGES_PER_SECOND}); pages per CPU second: {pages / cpu_seconds:.1f}"
    )
    if recoveries:
        below = [outcome for outcome in done if outcome.recovery < TARGET_RECOVERY]
        print(
            f"word recovery: min {min(recoveries):.4f}  mean {statistics.fmean(recoveries):.4f}  "
            f"below {TARGET_RECOVERY:.0%}: {len(below)}"
        )
        for outcome in sorted(done, key=lambda outcome: outcome.recovery)[:worst]:
            print(f"  {outcome.recovery:.4f}  {outcome.pages:4d} pages  {outcome.name}")
    failures = [outcome for outcome in outcomes if outcome.error]
    print(f"failures: {len(failures)}")
    for outcome in failures:
        print(f"  {outcome.name}: {outcome.error}")


if __name__ == "__main__":
    main()
