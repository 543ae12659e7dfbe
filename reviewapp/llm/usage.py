"""The usage record of one model call."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class CallUsage:
    """What one model call cost and how long it took; stored for every call, failed or not."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    latency_ms: float = 0.0
    ttft_ms: float | None = None
    model: str = ""
    outcome: str = "ok"  # "ok" | "error:<kind>"
    request_id: str | None = None
    batch: bool = False  # answered through the Message Batches API (billed at the batch rate)
