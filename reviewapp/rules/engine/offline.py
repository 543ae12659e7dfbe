"""Settles a flagged passage without a language model, from the rule's confirm/reject patterns."""

from __future__ import annotations

from dataclasses import dataclass

from .compiler import CompiledPlaybook


@dataclass(frozen=True)
class OfflineVerdict:
    """``state`` is CONFIRMED or REJECTED; ``quote`` is the verbatim text that settled it."""

    state: str
    quote: str


def offline_verdict(
    compiled: CompiledPlaybook, rule_id: str, passage: str
) -> OfflineVerdict | None:
    """``reject_if`` wins over ``confirm_if``; None means a lawyer must decide (needs review)."""
    crule = compiled.compiled_rule(rule_id)
    data = passage.encode("utf-8")
    for state, pattern in (("REJECTED", crule.reject_if), ("CONFIRMED", crule.confirm_if)):
        match = pattern.search(data) if pattern is not None else None
        if match is not None:
            return OfflineVerdict(state=state, quote=match.group().decode("utf-8"))
    return None
