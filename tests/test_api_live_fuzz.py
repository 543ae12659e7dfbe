"""Schemathesis as a client runs it: the `st` command against a live server's /api/schema/,
with a lawyer's token, every check and every phase (examples, coverage, fuzzing and the stateful
phase that chains operations), and no failure allowed. The only allowances are those of
``schemathesis.toml`` at the top of the repository, which `st run` started there reads too: a
refusal that depends on an uploaded file's bytes.

The requests are the same every run (a fixed seed): CI must not pass or fail by luck.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token

from tests.factories import CONTRACT, upload_and_ingest

ROOT = Path(__file__).resolve().parent.parent
ST = Path(sys.executable).with_name("st")

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_schemathesis_finds_no_failure_against_a_live_server(live_server, lawyer, matter, tmp_path):
    path = tmp_path / "contract.txt"
    path.write_text(CONTRACT, encoding="utf-8")
    upload_and_ingest(matter, path)
    token = Token.objects.create(user=lawyer).key
    run = subprocess.run(
        [
            str(ST),
            "run",
            f"{live_server.url}/api/schema/",
            "--header",
            f"Authorization: Token {token}",
            "--checks",
            "all",
            "--max-examples",
            "15",
            "--seed",
            "1",
            "--no-color",
        ],
        cwd=ROOT,  # where schemathesis.toml is
        capture_output=True,
        text=True,
        timeout=600,
    )
    failures = run.stdout.find("FAILURES")
    shown = run.stdout[failures : failures + 8000] if failures >= 0 else ""
    summary = run.stdout[-3000:]
    assert run.returncode == 0, shown + "\n...\n" + summary
    assert "Stateful" in summary and "Fuzzing" in summary
