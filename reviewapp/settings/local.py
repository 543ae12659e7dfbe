"""The embedded default: one machine, SQLite under var/, an embedded Redis server."""

import secrets

from reviewapp.settings.base import *  # noqa: F403
from reviewapp.settings.base import VAR_DIR
from reviewapp.settings.env import env_bool, env_str


def _local_secret_key() -> str:
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = env_str("DJANGO_SECRET_KEY") or _local_secret_key()
