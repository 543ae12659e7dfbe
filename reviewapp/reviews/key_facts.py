"""A review's key facts as one shape, whichever engine drafted them.

``facts_of(review)`` is what pages, exports and the portfolio grid read. A fact carries its
normalised ``value`` (an ISO date, a jurisdiction, a list of parties, an ISO 8601 duration, an
amount with currency), the human ``display`` text, the passage it came from and the words it was
read from. Drafts stored before facts were normalised hold a bare string per fact: those come back
with ``display`` set and ``value`` left ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .models import Review


@dataclass(frozen=True)
class KeyFact:
    name: str
    value: Any = None
    display: str = ""
    passage_index: int | None = None
    quote: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def facts_of(review: Review) -> dict[str, KeyFact]:
    draft = getattr(review, "draft", None)
    data = draft.data.get("key_facts", {}) if draft is not None else {}
    return {name: _fact(name, raw) for name, raw in data.items() if raw not in (None, "", [])}


def _fact(name: str, raw: Any) -> KeyFact:
    if isinstance(raw, dict) and "display" in raw:
        known = {"value", "display", "passage_index", "quote"}
        return KeyFact(
            name=name,
            value=raw.get("value"),
            display=str(raw.get("display") or ""),
            passage_index=raw.get("passage_index"),
            quote=str(raw.get("quote") or ""),
            extra={k: v for k, v in raw.items() if k not in known},
        )
    if isinstance(raw, list):
        return KeyFact(name=name, display="; ".join(str(item) for item in raw))
    return KeyFact(name=name, display=str(raw))
