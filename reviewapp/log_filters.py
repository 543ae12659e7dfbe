"""Logging filters named by the LOGGING setting."""

from __future__ import annotations

import logging


class ClientErrorsWithoutTraceback(logging.Filter):
    """A 4xx answer (a 403 for a page one may not see, a 404) is expected: Django logs it as a
    warning, and with a PermissionDenied also its traceback. Keep the line, drop the
    traceback; a 5xx keeps it."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
