"""`verify_audit` over 1,000,000 audit events in PostgreSQL.

    DATABASE_URL=postgres://user@host:5432/any .venv/bin/python benchmarks/bench_audit_verify.py
        [--events 1000000] [--organisations 1]

Target: at most 60 s for `manage.py verify_audit` (the real command, in its own process) over
1,000,000 events. The events are generated with the app's own hash function and loaded with
COPY into a dedicated database, `clausewise_bench_audit`, created for the run and dropped after.
Skipped (exit 0, with a message) when DATABASE_URL is not PostgreSQL.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _postgres import admin_connection, bench_url  # noqa: E402

BENCH_DB = "clausewise_bench_audit"
TARGET_SECONDS = 60.0
STATES = ("CONFIRMED", "PENDING", "REJECTED", "NEEDS_HUMAN_REVIEW")


def _manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _event_rows(organisation_id: int, count: int):
    """Rows as the app writes them: passage transitions, mostly, chained with its own hash."""
    from reviewapp.audit.chain import event_hash
    from reviewapp.audit.models import GENESIS_HASH

    started = datetime(2025, 1, 1, tzinfo=UTC)
    prev_hash = GENESIS_HASH
    for seq in range(1, count + 1):
        created_at = started + timedelta(milliseconds=seq * 31)
        data = {
            "contract_id": seq // 100,
            "review_id": seq // 100,
            "passage_index": seq % 100,
            "transition_id": seq,
            "from": None if seq % 3 else "PENDING",
            "to": STATES[seq % 4],
            "rules": [f"en.rule.{seq % 41}"],
        }
        fields = {
            "seq": seq,
            "prev_hash": prev_hash,
            "created_at": created_at,
            "action": "passage.transition",
            "actor_kind": "rule",
            "actor": "commercial-en@3",
            "target_type": "passage",
            "target_id": str(seq),
            "data": data,
        }
        digest = event_hash(organisation_id=organisation_id, **fields)
        yield (
            organisation_id,
            seq,
            created_at,
            "passage.transition",
            "rule",
            "commercial-en@3",
            "passage",
            str(seq),
            json.dumps(data),
            prev_hash,
            digest,
        )
        prev_hash = digest


def _load(url: str, events: int, organisations: int) -> None:
    import psycopg

    columns = (
        "organisation_id, seq, created_at, action, actor_kind, actor, target_type, target_id, "
        "data, prev_hash, hash"
    )
    per_org = events // organisations
    with psycopg.connect(url) as conn, conn.cursor() as cursor:
        for n in range(organisations):
            cursor.execute(
                "INSERT INTO accounts_organisation (name, created_at) VALUES (%s, now()) "
                "RETURNING id",
                [f"Bench firm {n}"],
            )
            organisation_id = cursor.fetchone()[0]
            last = None
            with cursor.copy(f"COPY audit_auditevent ({columns}) FROM STDIN") as copy:
                for row in _event_rows(organisation_id, per_org):
                    copy.write_row(row)
                    last = row
            cursor.execute(
                "INSERT INTO audit_auditchain (key, organisation_id, last_seq, last_hash, "
                "updated_at) VALUES (%s, %s, %s, %s, now())",
                [f"org:{organisation_id}", organisation_id, last[1], last[10]],
            )
        conn.commit()
        cursor.execute("ANALYZE audit_auditevent")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--organisations", type=int, default=1)
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        print(
            "skipped: set DATABASE_URL to a PostgreSQL server (a database "
            f"{BENCH_DB!r} is created there and dropped afterwards)"
        )
        return 0
    env = {
        **os.environ,
        "DATABASE_URL": bench_url(url, BENCH_DB),
        "DJANGO_SETTINGS_MODULE": "reviewapp.settings.local",
        "DJANGO_DEBUG": "0",
    }
    os.environ.update(env)
    import django

    django.setup()
    with admin_connection(url) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        admin.execute(f"CREATE DATABASE {BENCH_DB}")
    try:
        return _run(env, args.events, args.organisations)
    finally:
        with admin_connection(url) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")


def _run(env: dict[str, str], events: int, organisations: int) -> int:
    migrated = _manage(env, "migrate", "--no-input")
    if migrated.returncode:
        print(migrated.stdout, migrated.stderr)
        return 1
    started = time.perf_counter()
    _load(env["DATABASE_URL"], events, organisations)
    print(f"generated and loaded {events:,} events in {time.perf_counter() - started:.1f} s")
    started, cpu_before = time.perf_counter(), _children_cpu()
    verified = _manage(env, "verify_audit")
    seconds, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
    print(verified.stdout.strip())
    if verified.returncode:
        print(verified.stderr.strip())
        print("verify_audit reported a broken chain on untouched data")
        return 1
    verdict = "PASS" if seconds <= TARGET_SECONDS else "MISS"
    print(
        f"verify_audit: {events:,} events in {seconds:.1f} s wall, process included "
        f"({events / seconds:,.0f} events/s; target <= {TARGET_SECONDS:.0f} s): {verdict}; "
        f"CPU time of the command {cpu:.1f} s (the database's own work is not counted)"
    )
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
