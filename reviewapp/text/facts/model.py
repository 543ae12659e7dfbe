"""What fact finding reads (passages) and returns (facts with their value and source)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reviewapp.text.passages import PassageText  # noqa: F401  (the passages facts read)

AGREEMENT_DATE = "Agreement Date"
EFFECTIVE_DATE = "Effective Date"
EXPIRATION_DATE = "Expiration Date"
RENEWAL_TERM = "Renewal Term"
NOTICE_PERIOD = "Notice Period To Terminate Renewal"
GOVERNING_LAW = "Governing Law"
PARTIES = "Parties"
AMOUNTS = "Amounts"
DOCUMENT_NAME = "Document Name"
DATE_FACTS = (AGREEMENT_DATE, EFFECTIVE_DATE, EXPIRATION_DATE)
PERPETUAL = "perpetual"


@dataclass(frozen=True)
class Fact:
    """One key fact: ``value`` normalised, ``display`` for people, and where it was read:
    ``quote`` is verbatim from the text of passage ``passage_index``."""

    name: str
    value: Any = None
    display: str = ""
    passage_index: int | None = None
    quote: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The stored shape: what exports and the live page are given."""
        return {
            "value": self.value,
            "display": self.display,
            "passage_index": self.passage_index,
            "quote": self.quote,
            **self.extra,
        }

    @property
    def verified(self) -> bool:
        """False for a model's fact whose quote was not found in its passage."""
        return self.extra.get("verified", True) is not False
