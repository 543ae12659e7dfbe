"""Settles a flagged passage without a language model, from the rule's confirm/reject patterns."""

from __future__ import annotations

from dataclasses import dataclass

from reviewapp.contracts.normalise import normalise

from .compiler import CompiledPlaybook


@dataclass(frozen=True)
class OfflineVerdict:
    """``state`` is CONFIRMED or REJECTED; ``quote`` is the verbatim text that settled it."""

    state: str
    quote: str


def offline_verdict(
    compiled: CompiledPlaybook, rule_id: str, passage: str
) -> OfflineVerdict | None:
    """``reject_if`` wins over ``confirm_if``; None means a lawyer must decide (needs review).

    The patterns read the passage normalised; the quote is the passage's own wording.
    """
    crule = compiled.compiled_rule(rule_id)
    normalised = normalise(passage)
    data = normalised.text.encode("utf-8")
    for state, pattern in (("REJECTED", crule.reject_if), ("CONFIRMED", crule.confirm_if)):
        match = pattern.search(data) if pattern is not None else None
        if match is not None:
            start = len(data[: match.start()].decode("utf-8", errors="ignore"))
            end = start + len(match.group().decode("utf-8", errors="ignore"))
            source_start, source_end = normalised.span_to_source(start, end)
            return OfflineVerdict(state=state, quote=passage[source_start:source_end])
    return None
