"""The embedded default: one machine, SQLite under var/, an embedded Redis server."""

import secrets
import warnings

from reviewapp.settings.base import *  # noqa: F403
from reviewapp.settings.base import AUDIT_HMAC_KEY, VAR_DIR
from reviewapp.settings.env import env_bool, env_str


def _local_secret(name: str) -> str:
    """A random secret generated once into var/<name>, readable by its owner only."""
    path = VAR_DIR / name
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


# Off by default, so `make run` shows the app's own 403/404/500 pages (static files are served
# by WhiteNoise either way); DJANGO_DEBUG=1 brings Django's debug pages back.
DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = env_str("DJANGO_SECRET_KEY") or _local_secret("secret_key")
AUDIT_HMAC_KEY = AUDIT_HMAC_KEY or _local_secret("audit_hmac_key")

# WhiteNoise hands static files to the ASGI server as a synchronous iterator; Django warns on
# every file. The file is served all the same, so the terminal need not hear about it.
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators", category=Warning
)
