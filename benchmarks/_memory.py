"""Resident memory of a benchmark's child process: measured in a fresh process, so nothing the
benchmark itself imported counts."""

from __future__ import annotations

import subprocess
import sys


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def child_memory(script: str, *arguments: str) -> tuple[float, float]:
    """Run ``script --memory-child ARGUMENTS``, which prints its memory before and after."""
    command = [sys.executable, script, "--memory-child", *arguments]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()
    before, after = (float(value) for value in output.split())
    return before, after
