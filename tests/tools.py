"""Programs some tests drive (Chromium, Tesseract, Ghostscript, LibreOffice).

On a developer's machine a missing program skips its tests with the command that installs it;
CI sets ``CLAUSEWISE_REQUIRE_TOOLS`` (``.ci/run``), and there a missing program fails them, so a
green run always includes the browser, OCR and Word-revision tests."""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRED = bool(os.environ.get("CLAUSEWISE_REQUIRE_TOOLS"))


def tool_missing(reason: str) -> None:
    """Skip (or, in CI, fail) the calling test for a missing program."""
    if REQUIRED:
        pytest.fail(f"{reason} (CLAUSEWISE_REQUIRE_TOOLS is set)", pytrace=False)
    pytest.skip(reason)


def need_program(name: str, install: str) -> str:
    """The path of ``name``, or skip/fail with the package that provides it."""
    path = shutil.which(name)
    if path is None:
        tool_missing(f"{name} is not installed: apt-get install {install}")
    return str(path)
