"""Production: every secret and URL must come from the environment."""

from django.core.exceptions import ImproperlyConfigured

from reviewapp.settings.base import *  # noqa: F403
from reviewapp.settings.base import REDIS_URL, SECRET_KEY
from reviewapp.settings.env import env_bool

if not SECRET_KEY:
    raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set in production")
if not REDIS_URL:
    raise ImproperlyConfigured("REDIS_URL must be set in production")
if len(AUDIT_HMAC_KEY) < 32:  # noqa: F405 (from base)
    raise ImproperlyConfigured(
        "AUDIT_HMAC_KEY must be set in production (32 characters or more, kept outside the "
        "database: it keys the audit hash chain and signs its checkpoints)"
    )

DEBUG = False
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_CONTENT_TYPE_NOSNIFF = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
