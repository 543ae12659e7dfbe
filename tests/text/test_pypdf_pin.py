"""The extractor patches pypdf internals: another pypdf version must fail loudly, not quietly."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pypdf
import pytest

from reviewapp.text.extraction import speedups

ROOT = Path(__file__).resolve().parents[2]


def test_installed_pypdf_is_the_version_the_patches_were_written_for():
    assert pypdf.__version__ == speedups.PATCHED_PYPDF
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert f"pypdf=={speedups.PATCHED_PYPDF}" in dependencies


def test_another_pypdf_version_is_refused_at_install(monkeypatch):
    monkeypatch.setattr(pypdf, "__version__", "7.9.0")
    with pytest.raises(speedups.UnsupportedPypdf, match="7.9.0"):
        speedups.install()
