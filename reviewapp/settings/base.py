"""Settings shared by every environment. Values come from environment variables (see README)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from reviewapp.settings.env import (
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_optional_float,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(env_str("CLAUSEWISE_VAR_DIR", str(BASE_DIR / "var")))

SECRET_KEY = env_str("DJANGO_SECRET_KEY")
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])
# Pages that may open the events websocket besides the site itself (its own scheme, host and
# port): exact origins, compared with their port (reviewapp/realtime/origin.py).
WEBSOCKET_ALLOWED_ORIGINS = env_list("WEBSOCKET_ALLOWED_ORIGINS", CSRF_TRUSTED_ORIGINS)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "reviewapp.accounts",
    "reviewapp.contracts",
    "reviewapp.realtime",
    "reviewapp.rules",
    "reviewapp.reviews",
    "reviewapp.queue",
    "reviewapp.audit",
    "reviewapp.portfolio",
    "axes",
    # Two-factor sign-in (reviewapp/accounts/two_factor/): authenticator-app (TOTP) devices and
    # single-use recovery codes.
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # request.user.is_verified(): the session passed a second factor (django-otp).
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "reviewapp.audit.middleware.AuditDeniedMiddleware",
    # Below the audit middleware, so that its 403s to API requests are audited too.
    "reviewapp.accounts.two_factor.middleware.TwoFactorRequiredMiddleware",
    # Last, as django-axes asks: it turns a locked-out sign-in into our lockout page.
    "axes.middleware.AxesMiddleware",
]

# Content-Security-Policy (django-csp): scripts, styles, workers and connections from the site
# itself only; no inline script, style or event handler attribute, except a template that
# carries the request's nonce (the API docs). 'self' covers the site's own ws:/wss: socket.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "worker-src": [SELF],
        "connect-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# Sign-in throttling (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one username,
# or from one address, sign-in is refused (even with the right password) until the cool-off
# ends or an admin unlocks it (Django admin, "Access attempts", or `manage.py axes_reset`).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("SIGN_IN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("SIGN_IN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
# A right password alone no longer clears the failures: for a user who needs a second factor,
# only a right code does (reviewapp/accounts/two_factor/), or the password and a code could be
# guessed in turns forever. Wrong codes count as failures like wrong passwords, and their
# value is masked in the attempts Django admin shows.
AXES_RESET_ON_SUCCESS = False
AXES_SENSITIVE_PARAMETERS = ["otp_code"]
AXES_LOCKOUT_CALLABLE = "reviewapp.accounts.lockout.lockout_response"
AXES_VERBOSE = False
# The name authenticator apps show beside the account. django-otp's own throttle also stays on:
# after a wrong code the next one is refused for 1, 2, 4... seconds.
OTP_TOTP_ISSUER = "Clausewise"

# The reports' covering index (Passage: INCLUDE state, start, end) is a PostgreSQL speed-up;
# SQLite builds it without the extra columns, which is fine, so its warning is only noise.
SILENCED_SYSTEM_CHECKS = ["models.W040"]

ROOT_URLCONF = "reviewapp.urls"
ASGI_APPLICATION = "reviewapp.asgi.application"
WSGI_APPLICATION = "reviewapp.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "reviewapp.realtime.context_processors.last_event_seq",
                "reviewapp.rules.context_processors.admin_flags",
                "reviewapp.accounts.profile.context_processors.reader_time_zone",
            ],
        },
    },
]


def _database_config() -> dict[str, Any]:
    url = env_str("DATABASE_URL")
    if not url:
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{VAR_DIR / 'clausewise.sqlite3'}"
    try:
        parsed = dj_database_url.parse(url, conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0))
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_URL is not a database URL: {exc}") from exc
    config: dict[str, Any] = dict(parsed)
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # Web and worker processes write concurrently: WAL and immediate transactions
        # turn "database is locked" errors into short waits.
        config["OPTIONS"] = {
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    return config


DATABASES = {"default": _database_config()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The embedded default starts a Redis server (see reviewapp/embedded.py) and exports REDIS_URL
# before Django starts, so every process sees a URL here.
REDIS_URL = env_str("REDIS_URL")

# Redis pub/sub publishes a group message once and each server fans it out to its sockets, which
# keeps a state change's arrival at 200 sockets well under 150 ms (benchmarks/bench_sockets.py).
# It keeps no backlog, which is fine: events are stored and clients catch up after a reconnect.
# Seconds between a connected page's reads of the events it may have missed (a lost push).
LIVE_CATCH_UP_S = env_float("LIVE_CATCH_UP_S", 30.0, minimum=1.0)
# Seconds an open socket trusts its last check that the user is active and the session valid
# (read again before the next event after that; 0: before every event). A sign-out or
# deactivation also closes sockets at once through Redis; this catches what that missed.
REALTIME_RECHECK_S = env_float("REALTIME_RECHECK_S", 5.0, minimum=0.0)
# Open sockets (windows and tabs) per user; the next is closed with code 4429.
REALTIME_MAX_SOCKETS_PER_USER = env_int("REALTIME_MAX_SOCKETS_PER_USER", 20, minimum=1)
CHANNEL_LAYER = env_choice("CHANNEL_LAYER", "pubsub", ("pubsub", "lists"))
CHANNEL_LAYERS: dict[str, dict[str, Any]]
if CHANNEL_LAYER == "pubsub":
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": "clausewise:channels"},
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # redis-py 8 reads with a 5 s socket timeout by default, as long as the layer's
            # blocking pop waits: an idle socket's consumer crashed on the timeout.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 30}],
                "prefix": "clausewise:channels",
                "capacity": 1000,
            },
        }
    }

# The cache holds nothing that is not also in the database (throttle counters, the review state
# snapshot): with Redis away it answers "not cached" and logs, instead of failing the request.
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "clausewise",
        "OPTIONS": {
            "IGNORE_EXCEPTIONS": True,
            "SOCKET_CONNECT_TIMEOUT": 2,
            "SOCKET_TIMEOUT": 5,
        },
    }
}
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True

if not REDIS_URL:
    # Only one process without Redis: `manage.py review` and other commands run on their own.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
TIME_ZONE = "UTC"
USE_I18N = True
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns when it is missing
# Serve straight from the source folders: no collectstatic step on a developer machine.
WHITENOISE_USE_FINDERS = env_bool("WHITENOISE_USE_FINDERS", True)
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_ROOT = Path(env_str("CLAUSEWISE_MEDIA_ROOT", str(VAR_DIR / "media")))

# Uploads: Django streams anything over 2.5 MB to a temporary file; our own limit is below.
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 25 * 1024 * 1024, minimum=1)
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
INGEST_MAX_PAGES = env_int("INGEST_MAX_PAGES", 500, minimum=1)
INGEST_PARSE_TIMEOUT_S = env_float("INGEST_PARSE_TIMEOUT_S", 60.0, minimum=0.1)
INGEST_MEMORY_MB = env_int("INGEST_MEMORY_MB", 1024, minimum=64)
# Bulk intake (contracts/intake/): a zip is checked against these before anything is unpacked.
INTAKE_MAX_ZIP_BYTES = env_int("INTAKE_MAX_ZIP_BYTES", 500 * 1024 * 1024, minimum=1)
INTAKE_MAX_ENTRIES = env_int("INTAKE_MAX_ENTRIES", 1000, minimum=1)
INTAKE_MAX_UNCOMPRESSED_BYTES = env_int(
    "INTAKE_MAX_UNCOMPRESSED_BYTES", 2 * 1024 * 1024 * 1024, minimum=1
)
# How many times its own size a zip (unpacking to over 1 MiB), or an entry over 1 MiB, may expand.
INTAKE_MAX_RATIO = env_float("INTAKE_MAX_RATIO", 100.0, minimum=1.0)
# Bytes of original files one matter may hold (a zip counts whole, before it is unpacked); 0: none.
MATTER_STORAGE_QUOTA_BYTES = env_int(
    "MATTER_STORAGE_QUOTA_BYTES", 20 * 1024 * 1024 * 1024, minimum=0
)
# A browser upload that sent nothing for this long did not finish (the page was left).
INTAKE_STALLED_AFTER_S = env_int("INTAKE_STALLED_AFTER_S", 120, minimum=5)
# OCR of scanned PDFs (contracts/ocr.py) on the `ocr` queue, where Tesseract is installed.
OCR_ENABLED = env_bool("OCR_ENABLED", True)
OCR_LANGUAGES = [code for code in env_str("OCR_LANGUAGES", "eng+chi_sim").split("+") if code]
OCR_SECONDS_PER_PAGE = env_float("OCR_SECONDS_PER_PAGE", 60.0, minimum=1.0)
OCR_BASE_TIME_S = env_float("OCR_BASE_TIME_S", 60.0, minimum=1.0)
# Who the tracked changes and comments of the exported redlines are by: "<lawyer> (<firm>)".
# Empty: the name of the contract's organisation.
CLAUSEWISE_FIRM_NAME = env_str("CLAUSEWISE_FIRM_NAME").strip()

REST_FRAMEWORK = {
    # Token first: a request without credentials gets 401 with "WWW-Authenticate: Token".
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "reviewapp.accounts.two_factor.authentication.TwoFactorTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "EXCEPTION_HANDLER": "reviewapp.api_errors.exception_handler",
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "reviewapp.api_errors.ErrorsDocumentedSchema",
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_THROTTLE_ANON", "60/min"),
        "user": env_str("API_THROTTLE_USER", "1200/min"),
    },
}
# The playbook test box (an admin runs an edited playbook on pasted text in the web process):
# at most PLAYBOOK_TEST_THROTTLE tests per organisation, each stopped after PLAYBOOK_TEST_CPU_S.
PLAYBOOK_TEST_THROTTLE = env_str("PLAYBOOK_TEST_THROTTLE", "30/min")
PLAYBOOK_TEST_CPU_S = env_float("PLAYBOOK_TEST_CPU_S", 5.0, minimum=0.1)
SPECTACULAR_SETTINGS = {
    "TITLE": "Clausewise API",
    "DESCRIPTION": (
        "Upload contracts into your matters, follow their ingestion, read their passages, the "
        "review's state register, draft and verifications, export reviews (DOCX, JSON, CSV), "
        "replay live events, and test playbook rules (admins).\n\n"
        "Authenticate with the browser session or `Authorization: Token <key>`. Every error is "
        '`{"error": {"code": "...", "message": "..."}}`.'
    ),
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Served from our own static files: the app must work without internet access.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Two "status" fields with different choices: name their enums instead of "Status845Enum".
    "ENUM_NAME_OVERRIDES": {
        "ContractStatusEnum": "reviewapp.contracts.models.DocumentStatus",
        "VerificationStatusEnum": "reviewapp.reviews.models.VerificationStatus",
    },
}

# The audit log: event hashes are keyed and checkpoints signed with AUDIT_HMAC_KEY, which is not
# in the database (production requires it; local and test settings provide one). Beat appends a
# signed checkpoint of every chain head to AUDIT_CHECKPOINT_DIR, which the database's owner
# should not be able to write (see README, "Checking the audit log"). The first `migrate` writes
# the first one; events after the newest one can still be cut unseen, hence every minute.
AUDIT_HMAC_KEY = env_str("AUDIT_HMAC_KEY")
AUDIT_CHECKPOINT_DIR = Path(env_str("AUDIT_CHECKPOINT_DIR", str(VAR_DIR / "audit-checkpoints")))
AUDIT_CHECKPOINT_EVERY_S = env_float("AUDIT_CHECKPOINT_EVERY_S", 60.0, minimum=60.0)

# Celery: a task is acknowledged only after it finished, and requeued if its worker dies.
# The broker's visibility timeout must exceed the longest task, or a running task is
# delivered twice; the hard time limit keeps every task below it.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 300, minimum=10)
CELERY_TASK_SOFT_TIME_LIMIT = int(CELERY_TASK_TIME_LIMIT * 0.9)
CELERY_VISIBILITY_TIMEOUT = env_int(
    "CELERY_VISIBILITY_TIMEOUT", CELERY_TASK_TIME_LIMIT * 2, minimum=CELERY_TASK_TIME_LIMIT + 1
)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    # Sweep for messages of dead workers every N seconds (one cheap Redis query).
    "unacked_restore_interval": env_int("CELERY_UNACKED_RESTORE_INTERVAL", 10, minimum=1),
    "unacked_restore_throttle": 1,
}
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "reviewapp.contracts.tasks.ocr_contract": {"queue": "ocr"},
    # Housekeeping must not wait behind the backlog it is there to look after.
    "reviewapp.reviews.tasks.sweep_stalled_work": {"queue": "default"},
    "reviewapp.contracts.tasks.requeue_stalled_ingestions": {"queue": "default"},
    "reviewapp.contracts.tasks.delete_expired_contracts": {"queue": "default"},
    "reviewapp.contracts.tasks.*": {"queue": "ingest"},
    "reviewapp.reviews.tasks.*": {"queue": "model"},
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A task sent while the broker restarts (the launcher brings Redis back within seconds) waits
# for it, up to about 10 s, instead of leaving its row for the sweeper.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 12,
    "interval_start": 0.0,
    "interval_step": 0.25,
    "interval_max": 1.0,
}
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# Message Batches (a bulk upload that asks for them, Claude engine): a sent batch is polled
# every MODEL_BATCH_POLL_S, doubling up to MODEL_BATCH_POLL_MAX_S; a batch still collecting
# requests MODEL_BATCH_COLLECT_MAX_S after it opened is sent anyway; after MODEL_BATCH_MAX_ERRORS
# failed calls in a row its requests go to a lawyer (reviews.batches).
MODEL_BATCH_POLL_S = env_float("MODEL_BATCH_POLL_S", 30.0, minimum=0.0)
MODEL_BATCH_POLL_MAX_S = env_float("MODEL_BATCH_POLL_MAX_S", 600.0, minimum=1.0)
MODEL_BATCH_COLLECT_MAX_S = env_int("MODEL_BATCH_COLLECT_MAX_S", 900, minimum=0)
MODEL_BATCH_MAX_ERRORS = env_int("MODEL_BATCH_MAX_ERRORS", 10, minimum=1)
CELERY_BEAT_SCHEDULE = {
    "poll-model-batches": {  # Message Batches: send complete ones, poll sent ones, land results
        "task": "reviewapp.reviews.batches.tasks.poll_model_batches",
        "schedule": max(MODEL_BATCH_POLL_S, 5.0),
    },
    "sweep-stalled-work": {  # contracts, drafts and verifications that stopped moving
        "task": "reviewapp.reviews.tasks.sweep_stalled_work",
        "schedule": env_float("SWEEP_EVERY_S", 60.0, minimum=1.0),
    },
    "escalate-overdue-queue-items": {
        "task": "reviewapp.queue.tasks.escalate_overdue_items",
        "schedule": 60.0,
    },
    "retrain-routers": {
        "task": "reviewapp.rules.tasks.retrain_routers",
        "schedule": env_float("ROUTER_RETRAIN_EVERY_S", 7 * 24 * 3600.0, minimum=60.0),
    },
    "write-audit-checkpoint": {
        "task": "reviewapp.audit.tasks.write_audit_checkpoint",
        "schedule": AUDIT_CHECKPOINT_EVERY_S,
    },
    "delete-expired-contracts": {  # matters' retention periods; legal holds are skipped
        "task": "reviewapp.contracts.tasks.delete_expired_contracts",
        "schedule": env_float("RETENTION_SWEEP_EVERY_S", 24 * 3600.0, minimum=60.0),
    },
}
# The labelled folder (labels.jsonl, CUAD layout) that organisations' routers are retrained on,
# beside their lawyers' decisions. Default: the CUAD sample next to a development checkout.
ROUTER_TRAINING_DATA = env_str(
    "ROUTER_TRAINING_DATA", str(BASE_DIR.parent / "shared" / "data" / "cuad")
)
INGEST_STALLED_AFTER_S = env_int("INGEST_STALLED_AFTER_S", CELERY_VISIBILITY_TIMEOUT, minimum=10)
# Work not moved for this long is queued again; after SWEEP_MAX_ATTEMPTS tries it ends failed.
SWEEP_STALLED_AFTER_S = env_int("SWEEP_STALLED_AFTER_S", INGEST_STALLED_AFTER_S, minimum=10)
SWEEP_MAX_ATTEMPTS = env_int("SWEEP_MAX_ATTEMPTS", 3, minimum=1)

# Engines: Claude when a key is set, else the offline engine (no language model).
ANTHROPIC_API_KEY = env_str("ANTHROPIC_API_KEY")
ANTHROPIC_BASE_URL = env_str("ANTHROPIC_BASE_URL") or None
ANTHROPIC_MODEL = env_str("ANTHROPIC_MODEL", "claude-sonnet-5-5")
REVIEW_ENGINE = env_choice(
    "REVIEW_ENGINE", "anthropic" if ANTHROPIC_API_KEY else "offline", ("offline", "anthropic")
)
if REVIEW_ENGINE == "anthropic" and not ANTHROPIC_API_KEY:
    raise ImproperlyConfigured("REVIEW_ENGINE=anthropic needs ANTHROPIC_API_KEY")
LLM_DRAFT_TEMPERATURE = env_optional_float("LLM_DRAFT_TEMPERATURE")
LLM_VERIFY_TEMPERATURE = env_optional_float("LLM_VERIFY_TEMPERATURE")
LLM_DRAFT_MAX_TOKENS = env_int("LLM_DRAFT_MAX_TOKENS", 4096, minimum=256)
LLM_VERIFY_MAX_TOKENS = env_int("LLM_VERIFY_MAX_TOKENS", 2048, minimum=256)
LLM_TIMEOUT_S = env_float("LLM_TIMEOUT_S", 60.0, minimum=1.0)
LLM_CONNECT_TIMEOUT_S = env_float("LLM_CONNECT_TIMEOUT_S", 5.0, minimum=0.1)
LLM_FIRST_TOKEN_TIMEOUT_S = env_float("LLM_FIRST_TOKEN_TIMEOUT_S", 20.0, minimum=0.1)
LLM_SDK_RETRIES = env_int("LLM_SDK_RETRIES", 2, minimum=0)
LLM_TASK_RETRIES = env_int("LLM_TASK_RETRIES", 4, minimum=0)
LLM_RETRY_BACKOFF_S = env_float("LLM_RETRY_BACKOFF_S", 2.0, minimum=0.0)
LLM_MAX_CONCURRENT_PER_ORG = env_int("LLM_MAX_CONCURRENT_PER_ORG", 4, minimum=1)
LLM_PRICES_JSON = env_str("LLM_PRICES_JSON")  # {"model": {"input": $/Mtok, ...}}; empty: built-in
# Memory PostgreSQL may use per grouping in the admins' reports (SET LOCAL work_mem).
REPORTS_WORK_MEM = env_str("REPORTS_WORK_MEM", "64MB")
# Hours a lawyer has to decide a queue item, by the severity of the rule that flagged it.
QUEUE_SLA_HOURS = {
    "critical": env_float("QUEUE_SLA_CRITICAL_H", 4.0, minimum=0.1),
    "high": env_float("QUEUE_SLA_HIGH_H", 24.0, minimum=0.1),
    "medium": env_float("QUEUE_SLA_MEDIUM_H", 72.0, minimum=0.1),
    "low": env_float("QUEUE_SLA_LOW_H", 168.0, minimum=0.1),
}
# Seconds during which a lawyer may take back their own queue decision (0: never).
QUEUE_UNDO_WINDOW_S = env_int("QUEUE_UNDO_WINDOW_S", 30, minimum=0)
VERIFY_BATCH_SIZE = env_int("VERIFY_BATCH_SIZE", 8, minimum=1)
# Contracts longer than this (characters of passage text) go to the model in chunks.
LLM_CONTEXT_CHARS = env_int("LLM_CONTEXT_CHARS", 400_000, minimum=200)

EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "filters": {"client_errors": {"()": "reviewapp.log_filters.ClientErrorsWithoutTraceback"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["client_errors"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        # Through the root handler only: Django's own console handler (DEBUG on) printed each
        # 403 and 404 a second time.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "pikepdf": {"level": "WARNING"},
    },
}
