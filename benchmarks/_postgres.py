"""A benchmark's own PostgreSQL database, next to the one DATABASE_URL names.

Each is copied from a template migrated once for the migrations in the tree
(``clausewise_bench_tpl_<digest>``, kept on the server; a template of older migrations is
dropped when a new one is made), so a benchmark's own ``migrate`` finds nothing to do: four
benchmarks run by the tests would otherwise migrate four databases from nothing.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE_PREFIX = "clausewise_bench_tpl_"
TEMPLATE_LOCK = 7_260_512  # pg_advisory_lock key: one process makes the template, others wait


def bench_url(url: str, name: str) -> str:
    """``url`` with its database replaced by ``name``."""
    base, _, _ = url.rpartition("/")
    return f"{base}/{name}"


def admin_connection(url: str) -> Any:
    """An autocommit connection to the server's ``postgres`` database (to create and drop)."""
    import psycopg

    return psycopg.connect(bench_url(url, "postgres"), autocommit=True)


def postgres_url() -> str | None:
    """DATABASE_URL when it names a PostgreSQL server; else None, having said why we skip."""
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        return url
    print(
        "skipped: set DATABASE_URL to a PostgreSQL server (a database of the benchmark's own is "
        "created there and dropped afterwards)"
    )
    return None


def in_own_database(
    url: str,
    name: str,
    run: Callable[[], int],
    *,
    env: dict[str, str] | None = None,
    create: bool = True,
    keep: bool = False,
) -> int:
    """``run()`` with Django set up on a fresh database ``name`` on ``url``'s server (settings
    ``local``, DEBUG off, plus ``env``), dropped afterwards unless ``keep``; ``create=False``
    measures again on a database an earlier run kept."""
    os.environ.update(
        {
            "DATABASE_URL": bench_url(url, name),
            "DJANGO_SETTINGS_MODULE": "reviewapp.settings.local",
            "DJANGO_DEBUG": "0",
            "DJANGO_ALLOWED_HOSTS": "testserver,127.0.0.1,localhost",
            **(env or {}),
        }
    )
    if create:
        template = migrated_template(url)
        with admin_connection(url) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            admin.execute(f"CREATE DATABASE {name} TEMPLATE {template}")
    try:
        import django

        django.setup()
        return run()
    finally:
        from django.db import connections

        connections.close_all()
        if keep:
            print(f"kept database {name!r}; drop it when done")
        else:
            with admin_connection(url) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def migrated_template(url: str) -> str:
    """The name of a database on ``url``'s server migrated for the migrations in the tree,
    made (under an advisory lock) when it does not exist yet."""
    migrations = sorted(ROOT.glob("reviewapp/*/migrations/0*.py"))
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in migrations)).hexdigest()
    name = TEMPLATE_PREFIX + digest[:16]
    with admin_connection(url) as admin:
        admin.execute("SELECT pg_advisory_lock(%s)", (TEMPLATE_LOCK,))
        try:
            found = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
            if found.fetchone() is None:
                _make_template(admin, url, name)
        finally:
            admin.execute("SELECT pg_advisory_unlock(%s)", (TEMPLATE_LOCK,))
    return name


def _make_template(admin: Any, url: str, name: str) -> None:
    old = admin.execute(
        "SELECT datname FROM pg_database WHERE datname LIKE %s", (TEMPLATE_PREFIX + "%",)
    ).fetchall()
    for (stale,) in old:
        admin.execute(f"DROP DATABASE IF EXISTS {stale} WITH (FORCE)")
    admin.execute(f"CREATE DATABASE {name}")
    env = {
        **os.environ,
        "DATABASE_URL": bench_url(url, name),
        "DJANGO_SETTINGS_MODULE": "reviewapp.settings.local",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        raise RuntimeError(f"could not migrate the benchmark template:\n{done.stderr[-3000:]}")
