"""The second-stage check (the offline L2): for each category the first stage names on a passage,
is that clause really there? Plain Python over text and hits (no Django here)."""

from __future__ import annotations

from pathlib import Path

SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"


def shipped_check_path(language: str = "en") -> Path:
    """The check shipped for a language (trained on CUAD; see README)."""
    return SHIPPED_DIR / f"check-{language}.npz"
