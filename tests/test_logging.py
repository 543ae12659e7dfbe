"""An expected 403 or 404 is one line in the log, not a traceback; a 500 keeps its traceback."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator

import pytest
from django.core.exceptions import PermissionDenied

from reviewapp.log_filters import ClientErrorsWithoutTraceback

pytestmark = pytest.mark.django_db


@pytest.fixture
def console() -> Iterator[io.StringIO]:
    """What the configured console handler (settings.LOGGING) writes, while the test runs."""
    handler = next(h for h in logging.getLogger().handlers if h.get_name() == "console")
    assert isinstance(handler, logging.StreamHandler)
    stream = io.StringIO()
    previous = handler.setStream(stream)
    try:
        yield stream
    finally:
        handler.setStream(previous)


def test_a_403_and_a_404_log_a_line_without_a_traceback(client, reviewer, console):
    client.force_login(reviewer)
    assert client.get("/reports/").status_code == 403  # a reviewer is no organisation admin
    assert client.get("/contracts/999999/").status_code == 404
    output = console.getvalue()
    assert "WARNING django.request Forbidden (Permission denied): /reports/" in output
    assert "WARNING django.request Not Found: /contracts/999999/" in output
    assert "Traceback" not in output
    assert output.count("Forbidden (Permission denied): /reports/") == 1


def test_only_client_errors_lose_their_traceback():
    try:
        raise PermissionDenied("boom")
    except PermissionDenied:
        record = logging.getLogger("django.request").makeRecord(
            "django.request", logging.ERROR, __file__, 1, "Internal Server Error", (), None
        )
        record.exc_info = sys.exc_info()
    record.status_code = 500
    assert ClientErrorsWithoutTraceback().filter(record) and record.exc_info is not None
    record.status_code = 403
    assert ClientErrorsWithoutTraceback().filter(record) and record.exc_info is None
