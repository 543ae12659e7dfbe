"""Cost of a call from its usage and a price table (USD per million tokens)."""

from __future__ import annotations

from collections.abc import Mapping

from reviewapp.llm.usage import CallUsage

# Sonnet-tier list prices; check them against the current price list before relying on them.
# cache_write is the 5-minute ephemeral write (1.25 x input), cache_read a hit (0.1 x input).
_SONNET = {"input": 3.0, "output": 15.0, "cache_read": 0.30, "cache_write": 3.75}

# Requests answered through the Message Batches API cost half of every token price (input,
# output and cache alike). A price entry may set its own "batch_factor".
BATCH_FACTOR = 0.5

DEFAULT_PRICES: dict[str, dict[str, float]] = {
    "claude-sonnet-5-5": dict(_SONNET),
    "claude-sonnet-5": dict(_SONNET),
    "claude-sonnet-4-6": dict(_SONNET),
}


def estimate_cost_usd(usage: CallUsage, prices: Mapping[str, Mapping[str, float]]) -> float:
    """Price ``usage`` with the entry for its model.

    The entry is found by exact name, else by the longest name the model id starts with (the API
    may answer with a dated id). Missing cache prices default to 0.1 x and 1.25 x the input
    price. A batch request (``usage.batch``) costs ``batch_factor`` (default BATCH_FACTOR) of
    that. Raises KeyError when no entry matches, so a missing price is noticed, not billed as 0.
    """
    entry = _entry_for(usage.model, prices)
    input_price = entry["input"]
    cache_read = entry.get("cache_read", input_price * 0.1)
    cache_write = entry.get("cache_write", input_price * 1.25)
    total = (
        usage.input_tokens * input_price
        + usage.output_tokens * entry["output"]
        + usage.cache_read_input_tokens * cache_read
        + usage.cache_creation_input_tokens * cache_write
    )
    if usage.batch:
        total *= entry.get("batch_factor", BATCH_FACTOR)
    return total / 1_000_000


def _entry_for(model: str, prices: Mapping[str, Mapping[str, float]]) -> Mapping[str, float]:
    if model in prices:
        return prices[model]
    candidates = [name for name in prices if model.startswith(name)]
    if not candidates:
        raise KeyError(f"No price for model {model!r}.")
    return prices[max(candidates, key=len)]
