"""The model engine: the only package that imports the ``anthropic`` SDK.

Plain values in, plain values out; no Django. See DESIGN.md, "The three layers".
"""

from reviewapp.llm.config import DEFAULT_MODEL, LLMSettings
from reviewapp.llm.draft import DraftResult, parse_draft, stream_draft
from reviewapp.llm.errors import LLMUnavailable, classify_error
from reviewapp.llm.pricing import DEFAULT_PRICES, estimate_cost_usd
from reviewapp.llm.prompts import WITHHELD, contract_prefix
from reviewapp.llm.usage import CallUsage
from reviewapp.llm.verify import (
    CONFLICTING_VERDICTS,
    NO_VERDICT,
    QUOTE_NOT_FOUND,
    Verdict,
    VerifyItem,
    VerifyResult,
    quote_found,
    verify_passages,
)

__all__ = [
    "CONFLICTING_VERDICTS",
    "DEFAULT_MODEL",
    "DEFAULT_PRICES",
    "NO_VERDICT",
    "QUOTE_NOT_FOUND",
    "WITHHELD",
    "CallUsage",
    "DraftResult",
    "LLMSettings",
    "LLMUnavailable",
    "Verdict",
    "VerifyItem",
    "VerifyResult",
    "classify_error",
    "contract_prefix",
    "estimate_cost_usd",
    "parse_draft",
    "quote_found",
    "stream_draft",
    "verify_passages",
]
