"""The second-stage check a review runs with: the one retrained with the organisation's active
router version, if it was, else the shipped model file of the contract's language; loaded once
per process and named by its version (``check-en-org3@2``, or a digest of the shipped file)."""

from __future__ import annotations

import hashlib
import threading

from reviewapp.rules.models import RouterVersion
from reviewapp.text.check import shipped_check_path
from reviewapp.text.check.model import CheckModel, load_check

_loaded: dict[str, tuple[CheckModel | None, str]] = {}
# A version never changes; keyed by its row and creation time too, as a test database gives a
# rolled-back row's id to the next one.
_by_version: dict[tuple[int, object], tuple[CheckModel, str]] = {}
_lock = threading.Lock()


def check_for(
    *, language: str, organisation_id: int | None = None
) -> tuple[CheckModel | None, str]:
    """The check and its version label; (None, "") where none ships and none was retrained."""
    if organisation_id is not None:
        own = _organisation_check(organisation_id, language)
        if own is not None:
            return own
    return _shipped(language)


def _organisation_check(organisation_id: int, language: str) -> tuple[CheckModel, str] | None:
    version = (
        RouterVersion.objects.filter(
            organisation_id=organisation_id,
            language=language,
            is_active=True,
            check_artefact__isnull=False,
        )
        .only("pk", "organisation_id", "language", "number", "created_at")
        .first()
    )
    if version is None:
        return None
    key = (version.pk, version.created_at)
    with _lock:
        cached = _by_version.get(key)
    if cached is None:
        data = RouterVersion.objects.values_list("check_artefact", flat=True).get(pk=version.pk)
        cached = (load_check(bytes(data or b"")), version.check_label)
        with _lock:
            _by_version[key] = cached
    return cached


def _shipped(language: str) -> tuple[CheckModel | None, str]:
    """The shipped check ("check-en@1a2b3c4d5e6f")."""
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
