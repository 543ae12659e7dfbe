"""What every model call about a review is made of, interactive or in a Message Batch: the
settings, the contract in chunks that each fit one call (a chunk is the cached prefix,
byte-identical from one call to the next), the checks grouped by chunk, the verifier's items,
and each call's usage recorded at the price table.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.conf import settings

from reviewapp.contracts.models import Passage
from reviewapp.llm import (
    DEFAULT_PRICES,
    CallUsage,
    LLMSettings,
    VerifyItem,
    contract_prefix,
    estimate_cost_usd,
)
from reviewapp.reviews.model_flags import (
    MODEL_CATEGORY,
    MODEL_RULE_ID,
    model_flag_notes,
    model_flag_question,
)
from reviewapp.reviews.models import ModelCall, Review, Verification


def llm_settings() -> LLMSettings:
    return LLMSettings(
        api_key=settings.ANTHROPIC_API_KEY,
        model=settings.ANTHROPIC_MODEL,
        base_url=settings.ANTHROPIC_BASE_URL,
        draft_temperature=settings.LLM_DRAFT_TEMPERATURE,
        verify_temperature=settings.LLM_VERIFY_TEMPERATURE,
        draft_max_tokens=settings.LLM_DRAFT_MAX_TOKENS,
        verify_max_tokens=settings.LLM_VERIFY_MAX_TOKENS,
        timeout_s=settings.LLM_TIMEOUT_S,
        connect_timeout_s=settings.LLM_CONNECT_TIMEOUT_S,
        max_retries=settings.LLM_SDK_RETRIES,
        first_token_timeout_s=settings.LLM_FIRST_TOKEN_TIMEOUT_S,
    )


def verification_batches(review: Review, queued: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Batches of at most VERIFY_BATCH_SIZE that never cross a chunk (one prefix per call).

    ``queued`` holds (verification id, passage index) pairs.
    """
    chunk_of = {
        index: number
        for number, chunk in enumerate(review_chunks(review))
        for index, _text in chunk
    }
    by_chunk: dict[int, list[int]] = {}
    for verification_id, passage_index in queued:
        by_chunk.setdefault(chunk_of[passage_index], []).append(verification_id)
    size = settings.VERIFY_BATCH_SIZE
    return [
        ids[i : i + size] for _, ids in sorted(by_chunk.items()) for i in range(0, len(ids), size)
    ]


def verify_items(review: Review, compiled: Any, batch: list[Verification]) -> list[VerifyItem]:
    """The question of the most severe rule that fired; for a passage only the draft flagged,
    the draft's own title and recommendation."""
    by_model = any(v.rule_ids[0] == MODEL_RULE_ID for v in batch)
    notes = model_flag_notes(review) if by_model else {}
    items = []
    for v in batch:
        if v.rule_ids[0] == MODEL_RULE_ID:
            note = notes.get(v.passage.index)
            category = note["category"] if note else MODEL_CATEGORY
            question = model_flag_question(note)
        else:
            rule = compiled.compiled_rule(v.rule_ids[0]).rule
            category, question = rule.category, rule.question
        items.append(
            VerifyItem(
                passage_index=v.passage.index,
                text=v.passage.text,
                rule_id=v.rule_ids[0],
                category=category,
                question=question,
            )
        )
    return items


Chunk = list[tuple[int, str]]


def review_chunks(review: Review) -> list[Chunk]:
    """The contract in consecutive runs of passages that each fit one model call.

    Most contracts are one chunk. Every call about a passage sends its chunk as the cached
    prefix, byte-identical from one call to the next.
    """
    passages = Passage.objects.filter(contract=review.contract).order_by("index")
    limit = settings.LLM_CONTEXT_CHARS
    chunks: list[Chunk] = [[]]
    size = 0
    for index, text in passages.values_list("index", "text"):
        if chunks[-1] and size + len(text) > limit:
            chunks.append([])
            size = 0
        chunks[-1].append((index, text))
        size += len(text) + 8  # the "[P<index>] " label
    return chunks


def chunk_prefix(review: Review, chunk: Chunk) -> str:
    spans = [(int(start), int(end)) for start, end in review.planted_spans]
    return contract_prefix(review.contract.text, chunk, spans)


def review_prefix(review: Review, passage_index: int = 0) -> str:
    """The cached prefix of the chunk holding ``passage_index``."""
    chunks = review_chunks(review)
    for chunk in chunks:
        if any(index == passage_index for index, _ in chunk):
            return chunk_prefix(review, chunk)
    return chunk_prefix(review, chunks[0])


def model_call_record(
    *, review: Review, purpose: str, usage: CallUsage | None, config: LLMSettings
) -> ModelCall | None:
    if usage is None:
        return None
    cost = estimate_cost_usd(usage, llm_prices())
    return ModelCall.objects.create(
        review=review,
        purpose=purpose,
        model=usage.model or config.model,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_input_tokens=usage.cache_read_input_tokens,
        cache_creation_input_tokens=usage.cache_creation_input_tokens,
        latency_ms=usage.latency_ms,
        ttft_ms=usage.ttft_ms,
        outcome=usage.outcome[:40],
        cost_usd=Decimal(str(round(cost, 6))),
    )


def llm_prices() -> dict[str, dict[str, float]]:
    """The price table: ``LLM_PRICES_JSON`` where it is set, else reviewapp.llm's defaults."""
    if settings.LLM_PRICES_JSON:
        return json.loads(settings.LLM_PRICES_JSON)
    return DEFAULT_PRICES
