"""A benchmark's own PostgreSQL database, next to the one DATABASE_URL names."""

from __future__ import annotations

from typing import Any


def bench_url(url: str, name: str) -> str:
    """``url`` with its database replaced by ``name``."""
    base, _, _ = url.rpartition("/")
    return f"{base}/{name}"


def admin_connection(url: str) -> Any:
    """An autocommit connection to the server's ``postgres`` database (to create and drop)."""
    import psycopg

    return psycopg.connect(bench_url(url, "postgres"), autocommit=True)
