"""The L1 draft: streamed from Claude, or assembled offline from the playbook and facts."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext

from reviewapp.contracts.models import PassageState
from reviewapp.llm import LLMUnavailable, stream_draft
from reviewapp.realtime.events import event_publish, matter_group
from reviewapp.reviews.acting_for.selectors import Sides, acting_sides
from reviewapp.reviews.dispatch import verifications_enqueue
from reviewapp.reviews.key_facts import facts_from_data, model_key_facts
from reviewapp.reviews.llm_calls import chunk_prefix, llm_settings, model_call_record, review_chunks
from reviewapp.reviews.model_flags import draft_flags_raise
from reviewapp.reviews.models import Draft, DraftStatus, Engine, Review, RuleFiring
from reviewapp.reviews.output_rules import draft_flags
from reviewapp.reviews.slots import model_call_slot
from reviewapp.rules.display_labels import contract_type_label
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.engine import key_facts_find
from reviewapp.text.engine.side import speak_for

COALESCE_S = 0.05  # deltas reach the browser at most every ~50 ms
SAVE_EVERY_S = 1.0


def draft_run(*, review_id: int) -> Draft:
    """Produce the review's draft once; a failed stream leaves nothing shown as complete.

    Raises LLMUnavailable or SlotsBusy for the task to retry.
    """
    review = Review.objects.select_related("contract__matter", "playbook_version").get(pk=review_id)
    draft = Draft.objects.get(review=review)
    if draft.status == DraftStatus.COMPLETE:
        return draft
    if review.engine == Engine.OFFLINE:
        data = offline_draft(review)
        return draft_finish(review, draft, text=json.dumps(data, ensure_ascii=False), data=data)
    return _stream(review, draft)


def _stream(review: Review, draft: Draft) -> Draft:
    """One streaming call per chunk (one for most contracts), merged into one draft."""
    config = llm_settings()
    _set_status(review, draft, DraftStatus.STREAMING, text="")
    sink = _DeltaSink(review, draft)
    instructions = draft_instructions(review)
    results = []
    for chunk in review_chunks(review):
        with model_call_slot(review.contract.matter.organisation_id):
            try:
                result = stream_draft(
                    config,
                    prefix=chunk_prefix(review, chunk),
                    instructions=instructions,
                    on_delta=sink,
                )
            except LLMUnavailable as error:
                model_call_record(review=review, purpose="draft", usage=error.usage, config=config)
                _set_status(review, draft, DraftStatus.QUEUED, text="", error=error.kind)
                raise
        sink.flush()
        sink("\n\n")
        model_call_record(review=review, purpose="draft", usage=result.usage, config=config)
        results.append(result)
    draft.ttft_ms = results[0].usage.ttft_ms
    text = "\n\n".join(result.text for result in results)
    data = merge_drafts([r.draft for r in results])
    dropped = [issue for result in results for issue in result.dropped_issues]
    return draft_finish(review, draft, text=text, data=data, model=config.model, dropped=dropped)


def _passage_texts(review: Review) -> dict[int, str]:
    return dict(review.contract.passages.values_list("index", "text"))


def merge_drafts(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Drafts of consecutive chunks as one: summaries in order, facts first-found, all issues."""
    if len(parts) == 1:
        return parts[0]
    facts: dict[str, Any] = {}
    for part in parts:
        for name, value in part.get("key_facts", {}).items():
            if isinstance(value, list):
                facts[name] = [
                    *facts.get(name, []),
                    *[v for v in value if v not in facts.get(name, [])],
                ]
            elif value and not facts.get(name):
                facts[name] = value
            else:
                facts.setdefault(name, value)
    summaries = [f"Part {n}: {part.get('summary', '')}" for n, part in enumerate(parts, 1)]
    return {
        "summary": " ".join(summaries),
        "key_facts": facts,
        "issues": [issue for part in parts for issue in part.get("issues", [])],
    }


def draft_give_up(*, review_id: int, error: str) -> None:
    draft = Draft.objects.select_related("review__contract").get(review_id=review_id)
    _set_status(draft.review, draft, DraftStatus.FAILED, text="", error=error)


def draft_finish(
    review: Review,
    draft: Draft,
    *,
    text: str,
    data: dict[str, Any],
    model: str = "",
    dropped: Sequence[dict[str, Any]] = (),
) -> Draft:
    """Store the complete draft. A model's draft (``model`` given; ``dropped``: its issues that
    named no passage) also flags the passages it names that no rule flagged, atomically, and has
    its key facts checked against their passages and normalised."""
    if model:
        data["key_facts"] = model_key_facts(data.get("key_facts", {}), _passage_texts(review))
    draft.text = text
    draft.data = data
    draft.flags = draft_flags(_draft_prose(data), review.contract.text)
    draft.status = DraftStatus.COMPLETE
    draft.error = ""
    with transaction.atomic():
        if model:
            raised = draft_flags_raise(
                review=review, issues=data.get("issues", []), dropped=dropped, model=model
            )
            data["issues"] = raised.issues
            data["model_flags"], data["dropped_issues"] = raised.notes, raised.dropped
            verifications_enqueue(review=review, queued=raised.queued)
        draft.save()
        event_publish(
            matter_id=review.contract.matter_id,
            type="draft.complete",
            payload={
                "contract_id": review.contract_id,
                "review_id": review.pk,
                **draft_payload(draft),
            },
        )
    return draft


def _draft_prose(data: dict[str, Any]) -> str:
    parts = [str(data.get("summary", ""))]
    parts += [str(issue.get("recommendation", "")) for issue in data.get("issues", [])]
    return "\n".join(parts)


def _set_status(review: Review, draft: Draft, status: str, *, text: str, error: str = "") -> None:
    draft.status, draft.text, draft.error = status, text, error
    with transaction.atomic():
        draft.save(update_fields=["status", "text", "error", "updated_at"])
        event_publish(
            matter_id=review.contract.matter_id,
            type="draft.status",
            payload={"contract_id": review.contract_id, "status": status, "error": error or None},
        )


def draft_payload(draft: Draft) -> dict[str, Any]:
    return {
        "engine": draft.engine,
        "status": draft.status,
        "summary": draft.data.get("summary", ""),
        # Each fact whole (value, display, passage, quote and flags such as computed, estimated,
        # guessed): the live page says "about" and "(unsure)" from them, as the page does.
        "key_facts": {
            name: fact.as_dict()
            for name, fact in facts_from_data(draft.data.get("key_facts", {})).items()
        },
        "issues": draft.data.get("issues", []),
        "flags": draft.flags,
        "ttft_ms": draft.ttft_ms,
        "error": draft.error or None,
    }


class _DeltaSink:
    """Coalesces streamed text: pushed live every ~50 ms, saved every second."""

    def __init__(self, review: Review, draft: Draft) -> None:
        self.review, self.draft = review, draft
        self.buffer: list[str] = []
        self.text: list[str] = []
        self.pushed_at = self.saved_at = time.monotonic()
        self.layer = get_channel_layer() if settings.REDIS_URL else None

    def __call__(self, delta: str) -> None:
        self.buffer.append(delta)
        self.text.append(delta)
        now = time.monotonic()
        if now - self.pushed_at >= COALESCE_S or len(self.text) == 1:
            self._push()
        if now - self.saved_at >= SAVE_EVERY_S:
            self.saved_at = now
            Draft.objects.filter(pk=self.draft.pk).update(text="".join(self.text))

    def flush(self) -> None:
        if self.buffer:
            self._push()

    def _push(self) -> None:
        chunk, self.buffer = "".join(self.buffer), []
        self.pushed_at = time.monotonic()
        if self.layer is None:
            return
        message = {
            "type": "draft.delta",
            "matter_id": self.review.contract.matter_id,
            "payload": {"contract_id": self.review.contract_id, "delta": chunk},
        }
        async_to_sync(self.layer.group_send)(
            matter_group(self.review.contract.matter_id), {"type": "live.message", "live": message}
        )


def draft_instructions(review: Review) -> str:
    """The playbook's positions for the categories that fired (after the cached prefix),
    naming the party we act for when one is chosen."""
    compiled = playbook_compiled(review.playbook_version)
    sides = acting_sides(review.contract)
    lines, seen = [], set()
    if sides is not None:
        lines.append(f"We act for {sides.client.shown()}; review the contract for that party.")
    for rule_id in RuleFiring.objects.filter(review=review).values_list("rule_id", flat=True):
        rule = compiled.compiled_rule(rule_id).rule
        if rule.category in seen or not rule.standard_position:
            continue
        seen.add(rule.category)
        wording = f" Standard wording: {rule.fallback_clause}" if rule.fallback_clause else ""
        position, fallback = (
            spoken_for(sides, rule.standard_position),
            spoken_for(sides, rule.fallback),
        )
        lines.append(f"- {rule.category}: {position} Fallback: {fallback}{wording}")
    return "\n".join(lines)


def issues_for_side(
    draft: Draft | None, issues: list[dict[str, Any]], sides: Sides | None
) -> list[dict[str, Any]]:
    """The offline draft's issues as a page shows them: their recommendations (the playbook's
    positions) naming the party we act for, also when it was chosen after the draft was made.
    A model's words stay as written."""
    if draft is None or draft.engine != Engine.OFFLINE or sides is None:
        return issues
    return [
        {**issue, "recommendation": spoken_for(sides, str(issue.get("recommendation", "")))}
        for issue in issues
    ]


def spoken_for(sides: Sides | None, text: str) -> str:
    """A playbook's words naming the party we act for (and the counterparty), once chosen."""
    if sides is None:
        return text
    other = sides.counterparty.term if sides.counterparty else None
    return speak_for(text, client=sides.client.term, counterparty=other)


LANGUAGE_OF_CONTRACT = {"zh": "zh-hans", "en": "en"}


def offline_summary(counts: dict[str, Any]) -> str:
    """The offline draft's summary in the active language (pages show it in the reader's); a
    Word or text file has no fixed pages, so its summary counts passages only."""
    if counts.get("pages") is None:
        return gettext(
            "Contract (type: %(kind)s) in %(passages)s passages; trigger rules flagged "
            "%(flagged)s passage(s) in %(categories)s categories. Assembled by the offline "
            "engine from the playbook; no language model was used."
        ) % {**counts, "kind": contract_type_label(counts.get("type") or "")}
    return gettext(
        "Contract (type: %(kind)s) of %(pages)s page(s) in %(passages)s passages; trigger rules "
        "flagged %(flagged)s passage(s) in %(categories)s categories. Assembled by the offline "
        "engine from the playbook; no language model was used."
    ) % {**counts, "kind": contract_type_label(counts.get("type") or "")}


def draft_summary(draft: Draft) -> str:
    """What the review page shows: an offline summary in the reader's language, a model's as
    the model wrote it."""
    return summary_shown(draft.data)


def summary_shown(data: Mapping[str, Any]) -> str:
    """``draft_summary`` of a draft's stored data (for callers that loaded it)."""
    counts = data.get("summary_counts")
    return offline_summary(counts) if counts else str(data.get("summary", ""))


def offline_draft(review: Review) -> dict[str, Any]:
    """A draft without a model: fact extractors plus the playbook's position for each category
    a routing rule flagged (secondary rules only add questions for the verifier)."""
    compiled = playbook_compiled(review.playbook_version)
    contract = review.contract
    passages = list(contract.passages.order_by("index"))
    facts = key_facts_find(compiled, contract.text, passages)
    sides = acting_sides(contract)
    issues = []
    seen: set[tuple[int, str]] = set()
    firings = RuleFiring.objects.filter(review=review).select_related("passage")
    for firing in firings.order_by("passage__index", "rule_id"):
        if not compiled.routes(firing.rule_id):
            continue  # a secondary rule's question is for the verifier, not an issue of its own
        rule = compiled.compiled_rule(firing.rule_id).rule
        if (firing.passage.index, rule.category) in seen:
            continue  # a category's passage and heading rules make one issue
        seen.add((firing.passage.index, rule.category))
        issues.append(
            {
                "passage": firing.passage.index,
                "risk": rule.severity,
                "title": rule.category,
                "recommendation": spoken_for(sides, rule.standard_position or rule.question),
            }
        )
    counts = {
        "type": contract.contract_type,
        "pages": contract.page_count if contract.kind == "pdf" else None,  # Word, text: no pages
        "passages": len(passages),
        "flagged": sum(1 for p in passages if p.state != PassageState.CONFIRMED),
        "categories": len({i["title"] for i in issues}),
    }
    with translation.override(LANGUAGE_OF_CONTRACT.get(contract.language, "en")):
        summary = offline_summary(counts)  # stored in the contract's language, for exports
    return {
        "summary": summary,
        "summary_counts": counts,
        "acting_for": {"name": sides.client.name, "role": sides.client.role} if sides else None,
        "key_facts": {name: fact.as_dict() for name, fact in facts.items()},
        "issues": issues,
    }
