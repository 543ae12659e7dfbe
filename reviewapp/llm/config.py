"""Settings of the model engine, filled by the lead from Django settings (plain values only)."""

from __future__ import annotations

from dataclasses import dataclass, field

# The newest Sonnet listed in anthropic.types.ModelParam of the pinned SDK.
DEFAULT_MODEL = "claude-sonnet-5-5"


@dataclass(frozen=True)
class LLMSettings:
    """How to reach the model and how long to wait for it.

    Temperatures default to None, which omits the parameter: the SDK pinned here no longer has a
    ``temperature`` argument, and Sonnet 5 and later models answer 400 ("`temperature` is
    deprecated for this model") when it is sent. Set them only for a model that accepts it.
    """

    api_key: str = field(repr=False)
    model: str = DEFAULT_MODEL
    base_url: str | None = None
    draft_temperature: float | None = None
    verify_temperature: float | None = None
    draft_max_tokens: int = 4096
    verify_max_tokens: int = 2048
    timeout_s: float = 60.0
    connect_timeout_s: float = 5.0
    max_retries: int = 2
    first_token_timeout_s: float = 20.0

    def __post_init__(self) -> None:
        if not self.api_key:
            raise ValueError("LLMSettings.api_key is empty.")
        for name in ("timeout_s", "connect_timeout_s", "first_token_timeout_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"LLMSettings.{name} must be positive.")
        for name in ("draft_max_tokens", "verify_max_tokens"):
            if getattr(self, name) < 1:
                raise ValueError(f"LLMSettings.{name} must be at least 1.")
        if self.max_retries < 0:
            raise ValueError("LLMSettings.max_retries must not be negative.")
