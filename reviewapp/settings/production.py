"""Production: every secret and URL must come from the environment."""

from django.core.exceptions import ImproperlyConfigured

from reviewapp.settings.base import *  # noqa: F403
from reviewapp.settings.base import REDIS_URL, SECRET_KEY
from reviewapp.settings.env import env_bool, env_int, env_str

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

# HTTPS only: plain HTTP is redirected, except the health check, which a load balancer or
# compose probes over plain HTTP behind the TLS proxy.
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 365 * 24 * 3600, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", True)


def _proxy_ssl_header(name: str) -> tuple[str, str] | None:
    """A TLS-terminating proxy's header (e.g. X-Forwarded-Proto) that says "https"."""
    header = name.strip()
    if not header:
        return None
    if not header.replace("-", "").replace("_", "").isalnum():
        raise ImproperlyConfigured(
            f"DJANGO_SECURE_PROXY_SSL_HEADER must be a header name, got {name!r}"
        )
    return "HTTP_" + header.upper().replace("-", "_"), "https"


# Trust it only behind a proxy that always sets it: anyone can send the header to the app.
SECURE_PROXY_SSL_HEADER = _proxy_ssl_header(env_str("DJANGO_SECURE_PROXY_SSL_HEADER"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
