"""Settles a flagged passage without a language model, from the rule's confirm/reject patterns
and, for a rule with ``citation_check``, from the laws the passage cites."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reviewapp.text.citations import Finding, check_citations, citation_verdict
from reviewapp.text.normalise import NormalisedText, normalise

from .compiler import CompiledPlaybook


@dataclass(frozen=True)
class OfflineVerdict:
    """``state`` is CONFIRMED or REJECTED; ``quote`` is the verbatim text that settled it;
    ``findings`` are the citation check's, when that check settled it."""

    state: str
    quote: str
    findings: tuple[Finding, ...] = ()


def offline_verdict(
    compiled: CompiledPlaybook, rule_id: str, passage: str
) -> OfflineVerdict | None:
    """``reject_if`` wins, then the citation check (a wrong citation rejects, citations all
    right confirm), then ``confirm_if``; None means a lawyer must decide (needs review).

    The patterns read the passage normalised; the quote is the passage's own wording.
    """
    crule = compiled.compiled_rule(rule_id)
    normalised = normalise(passage)
    data = normalised.text.encode("utf-8")
    match = crule.reject_if.search(data) if crule.reject_if is not None else None
    if match is not None:
        return _matched("REJECTED", match, data, normalised, passage)
    if crule.rule.citation_check:
        verdict = citation_verdict(check_citations(normalised.text))
        if verdict.state is not None:
            start, end = normalised.span_to_source(verdict.start, verdict.end)
            return OfflineVerdict(verdict.state, passage[start:end], verdict.findings)
    match = crule.confirm_if.search(data) if crule.confirm_if is not None else None
    if match is not None:
        return _matched("CONFIRMED", match, data, normalised, passage)
    return None


def _matched(
    state: str, match: Any, data: bytes, normalised: NormalisedText, passage: str
) -> OfflineVerdict:
    start = len(data[: match.start()].decode("utf-8", errors="ignore"))
    end = start + len(match.group().decode("utf-8", errors="ignore"))
    source_start, source_end = normalised.span_to_source(start, end)
    return OfflineVerdict(state=state, quote=passage[source_start:source_end])
