"""A benchmark's own PostgreSQL database, next to the one DATABASE_URL names."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any


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
        with admin_connection(url) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            admin.execute(f"CREATE DATABASE {name}")
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
