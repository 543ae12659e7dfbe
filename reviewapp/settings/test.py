"""Tests: PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set, else the embedded default.

Under parallel workers (pytest-xdist, ``make test``) each worker has its own test database
(pytest-django adds the worker's name) and its own Redis database number and media folder,
so that Celery queues, channel groups, cached snapshots and stored files of one worker's
tests never meet another's."""

import os
from pathlib import Path
from typing import Any

from reviewapp.embedded import ensure_redis_url, redis_url_with_db

ensure_redis_url(Path(__file__).resolve().parents[2] / "var" / "redis-test")

# "gw3" in a pytest-xdist worker; children the tests start inherit it and the URL set here.
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if XDIST_WORKER and not os.environ.get("CLAUSEWISE_TEST_REDIS_DB"):
    # Redis keeps 16 databases by default; database 0 stays for runs without workers.
    os.environ["CLAUSEWISE_TEST_REDIS_DB"] = str(1 + int(XDIST_WORKER.removeprefix("gw")) % 15)
    os.environ["REDIS_URL"] = redis_url_with_db(
        os.environ["REDIS_URL"], int(os.environ["CLAUSEWISE_TEST_REDIS_DB"])
    )

from reviewapp.settings.base import *  # noqa: E402, F403
from reviewapp.settings.base import DATABASES, VAR_DIR  # noqa: E402
from reviewapp.settings.env import env_bool, env_str  # noqa: E402

SECRET_KEY = "test-only-secret-key-not-for-production"  # noqa: S105
DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
MEDIA_ROOT = VAR_DIR / ("test-media-" + XDIST_WORKER if XDIST_WORKER else "test-media")
ALLOWED_HOSTS = ["*"]
# The first `migrate` of a test database writes the first audit checkpoint: one folder per
# worker, never the real var/audit-checkpoints (tests/audit gives each test its own).
_CHECKPOINTS = "test-audit-checkpoints" + (f"-{XDIST_WORKER}" if XDIST_WORKER else "")
AUDIT_CHECKPOINT_DIR = Path(env_str("AUDIT_CHECKPOINT_DIR", str(VAR_DIR / _CHECKPOINTS)))

# Redis pub/sub channels are not per database: each worker's channel groups get their own prefix.
_LAYER_CONFIG: dict[str, Any] = CHANNEL_LAYERS["default"].get("CONFIG", {})  # noqa: F405
if XDIST_WORKER and "prefix" in _LAYER_CONFIG:
    _LAYER_CONFIG["prefix"] += f":{XDIST_WORKER}"

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
PLAYBOOK_TEST_THROTTLE = env_str("PLAYBOOK_TEST_THROTTLE", "100000/min")
