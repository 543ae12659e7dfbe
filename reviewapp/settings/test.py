"""Tests: PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set, else the embedded default."""

import os
from pathlib import Path

from reviewapp.embedded import ensure_redis_url

ensure_redis_url(Path(__file__).resolve().parents[2] / "var" / "redis-test")

from reviewapp.settings.base import *  # noqa: E402, F403
from reviewapp.settings.base import DATABASES, VAR_DIR  # noqa: E402
from reviewapp.settings.env import env_bool, env_str  # noqa: E402

SECRET_KEY = "test-only-secret-key-not-for-production"  # noqa: S105
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
MEDIA_ROOT = VAR_DIR / "test-media"
ALLOWED_HOSTS = ["*"]

# Worker and web processes started by the tests must see the same test database,
# so SQLite tests use a file rather than memory.
# One file per test run, so that two runs on one machine do not share it.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-clausewise-{os.getpid()}.sqlite3")}

# Tests run tasks inline unless they start a real worker (whose environment sets this to 0).
CELERY_TASK_ALWAYS_EAGER = env_bool("CLAUSEWISE_CELERY_EAGER", True)
CELERY_TASK_EAGER_PROPAGATES = True

# Django empties tables with TRUNCATE between transactional tests: the audit triggers allow
# that only to superusers and members of clausewise_audit_maintenance, never through a session
# setting (reviewapp/audit/migrations/0008), so PostgreSQL tests connect as such a role.
AUDIT_HMAC_KEY = env_str("AUDIT_HMAC_KEY", "test-only-audit-hmac-key-not-for-production")

# API throttles count in the shared cache across tests: high rates here; tests/accounts
# exercise the throttle itself with its own rate.
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": {"anon": "100000/min", "user": "100000/min"},
}
