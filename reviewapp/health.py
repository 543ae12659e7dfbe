"""`/healthz`: answers 200 when the database and Redis answer (for load balancers and compose)."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, JsonResponse

from reviewapp.redis_pool import redis_client


def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _database_ok(), "redis": _redis_ok()}
    return JsonResponse(checks, status=200 if all(checks.values()) else 503)


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except Exception:
        return False


def _redis_ok() -> bool:
    try:
        return bool(redis_client().ping())
    except Exception:
        return False
