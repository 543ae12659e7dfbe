"""The second-stage check a review runs with: the shipped model file of the contract's language,
loaded once per process and named by its version (a digest of the file)."""

from __future__ import annotations

import hashlib
import threading

from reviewapp.rules.check import shipped_check_path
from reviewapp.rules.check.model import CheckModel, load_check

_loaded: dict[str, tuple[CheckModel | None, str]] = {}
_lock = threading.Lock()


def check_for(*, language: str) -> tuple[CheckModel | None, str]:
    """The check and its version label ("check-en@1a2b3c4d5e6f"); (None, "") where none ships."""
    with _lock:
        cached = _loaded.get(language)
        if cached is not None:
            return cached
    path = shipped_check_path(language)
    if not path.is_file():
        found: tuple[CheckModel | None, str] = (None, "")
    else:
        data = path.read_bytes()
        found = (load_check(data), f"check-{language}@{hashlib.sha256(data).hexdigest()[:12]}")
    with _lock:
        _loaded[language] = found
    return found
