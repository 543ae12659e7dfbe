"""The fixed list of reasons a bulk upload gives, for one file it did not take or a whole zip.

Every listed failure of a batch (``IntakeBatch.failures``, the batch's API answer) carries one of
these codes, and its message is a catalogue id of this module or of ``archive.py``, translated
when it is shown. A document of the batch that could not be read is listed with its status,
which is in this list too.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from reviewapp.contracts.models import DocumentStatus


class FailureCode(models.TextChoices):
    # The whole zip, refused before anything in it is unpacked.
    NOT_A_ZIP = "NOT_A_ZIP", _("Not a zip")
    EMPTY = "EMPTY", _("Empty zip")
    TOO_MANY_ENTRIES = "TOO_MANY_ENTRIES", _("Too many files")
    ZIP_TOO_BIG = "ZIP_TOO_BIG", _("Unpacks too large")
    ZIP_BOMB = "ZIP_BOMB", _("Zip bomb")
    PATH_TRAVERSAL = "PATH_TRAVERSAL", _("Path outside the folder")
    QUOTA_EXCEEDED = "QUOTA_EXCEEDED", _("Matter storage full")
    # One entry of a zip, or one file of a folder.
    NESTED_ARCHIVE = "NESTED_ARCHIVE", _("Archive inside the zip")
    ENCRYPTED = "ENCRYPTED", _("Encrypted in the zip")
    EMPTY_NAME = "EMPTY_NAME", _("No file name")
    UNREADABLE = "UNREADABLE", _("Unreadable in the zip")
    DUPLICATE = "DUPLICATE", _("Already in this matter")
    UPLOAD_INCOMPLETE = "UPLOAD_INCOMPLETE", _("Upload did not finish")
    # A document that arrived and could not be read (its DocumentStatus); TOO_LARGE is also a
    # zip, or an entry, over its size limit.
    TOO_LARGE = DocumentStatus.TOO_LARGE.value, _("Too large")
    NEEDS_PASSWORD = DocumentStatus.NEEDS_PASSWORD.value, _("Needs password")
    NEEDS_OCR = DocumentStatus.NEEDS_OCR.value, _("Needs OCR")
    PARSE_FAILED = DocumentStatus.PARSE_FAILED.value, _("Could not read")
    UNSUPPORTED_TYPE = DocumentStatus.UNSUPPORTED_TYPE.value, _("Unsupported type")


# What a listed entry says, by its code (``%(...)s`` values are stored beside the message).
ENTRY_MESSAGES: dict[FailureCode, str] = {
    FailureCode.NESTED_ARCHIVE: gettext_noop(
        "An archive inside the zip is not opened: unpack it and upload its files."
    ),
    FailureCode.ENCRYPTED: gettext_noop(
        "This file is encrypted inside the zip: zip it again without a password."
    ),
    FailureCode.EMPTY_NAME: gettext_noop(
        "This entry has no file name (it ends in a slash or backslash): nothing was read from it."
    ),
    FailureCode.UNREADABLE: gettext_noop(
        "This file could not be read from the zip (it is damaged or truncated)."
    ),
    FailureCode.DUPLICATE: gettext_noop("Already in this matter"),
    FailureCode.UPLOAD_INCOMPLETE: gettext_noop("Upload did not finish"),
    FailureCode.TOO_LARGE: gettext_noop("The file is %(size)s MB; the limit is %(limit)s MB."),
    FailureCode.QUOTA_EXCEEDED: gettext_noop(
        "The matter's storage is full: %(used)s MB of %(limit)s MB are used. Delete documents "
        "the matter no longer needs, or ask an administrator to raise the quota."
    ),
}
