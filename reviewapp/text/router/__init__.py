"""The learned router: a passage classifier beside the trigger rules (no Django here)."""

from __future__ import annotations

from pathlib import Path

SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"


def shipped_router_path(language: str = "en") -> Path:
    """The model file shipped for a language (trained on CUAD; see README)."""
    return SHIPPED_DIR / f"router-{language}.npz"
