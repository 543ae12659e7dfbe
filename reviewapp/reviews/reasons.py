"""Why a passage went to a lawyer: the codes stored on verifications and queue items, and the
sentence a lawyer reads for each (exports and the API keep the code); and the verifier's
rationale as a lawyer reads it."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.utils.translation import gettext_lazy as _

from reviewapp.contracts.models import PassageState
from reviewapp.llm import NO_VERDICT, QUOTE_NOT_FOUND
from reviewapp.reviews.acting_for.selectors import Sides
from reviewapp.text import citations
from reviewapp.text.engine.side import speak_for
from reviewapp.text.normalise import normalise

LLM_UNAVAILABLE = "LLM_UNAVAILABLE"
RULE_REQUIRES_HUMAN = "RULE_REQUIRES_HUMAN"
PLANTED_INSTRUCTIONS = "PLANTED_INSTRUCTIONS"
NO_OFFLINE_VERDICT = "NO_OFFLINE_VERDICT"
MODEL_RAISED = "MODEL_RAISED"
CATEGORY_NOT_PRESENT = "CATEGORY_NOT_PRESENT"
FLAG_REOPENED = "FLAG_REOPENED"
FALSE_FLAG = "FALSE_FLAG"
LAWYER_FLAGGED = "LAWYER_FLAGGED"
PROTECTS_CLIENT = "PROTECTS_CLIENT"
WORK_STALLED = "WORK_STALLED"
MODEL_BATCH_EXPIRED = "MODEL_BATCH_EXPIRED"
MODEL_BATCH_ERRORED = "MODEL_BATCH_ERRORED"
MODEL_BATCH_CANCELED = "MODEL_BATCH_CANCELED"
MODEL_BATCH_FAILED = "MODEL_BATCH_FAILED"

_LABELS = {
    RULE_REQUIRES_HUMAN: _("A rule that fired here always needs a lawyer."),
    NO_OFFLINE_VERDICT: _("The offline engine could not settle it from the rule's wording."),
    LLM_UNAVAILABLE: _("The language model could not be reached; a lawyer decides instead."),
    PLANTED_INSTRUCTIONS: _("The passage holds text addressed to an AI reviewer."),
    QUOTE_NOT_FOUND: _("The model's quote is not in the passage, so its verdict was not trusted."),
    NO_VERDICT: _("The model gave no usable verdict."),
    MODEL_RAISED: _(
        "The model's draft raised this passage; a lawyer settles it, not the model that raised it."
    ),
    CATEGORY_NOT_PRESENT: _(
        "The second-stage check found none of the flagged kinds of clause here."
    ),
    FLAG_REOPENED: _("A lawyer reopened a flag the second-stage check had dropped."),
    FALSE_FLAG: _("A lawyer found that this is not the kind of clause the review named."),
    LAWYER_FLAGGED: _("A lawyer flagged a clause the review had missed."),
    PROTECTS_CLIENT: _(
        "The clause binds only the counterparty, so it protects our client; the playbook "
        "settles such clauses without a lawyer."
    ),
    WORK_STALLED: _("The check did not finish after several tries; a lawyer decides instead."),
    MODEL_BATCH_EXPIRED: _(
        "The batch request expired before the model answered; a lawyer decides instead."
    ),
    MODEL_BATCH_ERRORED: _(
        "The batch request failed, or its answer could not be used; a lawyer decides instead."
    ),
    MODEL_BATCH_CANCELED: _(
        "The batch was canceled before the model answered; a lawyer decides instead."
    ),
    MODEL_BATCH_FAILED: _("The batch could not be sent or read; a lawyer decides instead."),
}


def reason_label(reason: str | None) -> str:
    """The sentence for a known code; anything else (a rule list, a note) as it is."""
    if not reason:
        return ""
    return str(_LABELS.get(reason, reason))


def reason_labels() -> dict[str, str]:
    """Every known code with its sentence, in the active language (for page scripts)."""
    return {code: str(label) for code, label in _LABELS.items()}


# Who settled a verification (``Verification.model``) when no model did: their rationale is one
# of our own English sentences, stored as written for the API and the exports.
OWN_ACTORS = frozenset({"offline", "rule", "system"})
_OFFLINE_MATCH: dict[str, Any] = {
    PassageState.CONFIRMED: _("The rule's wording for an acceptable clause matched (quoted)."),
    PassageState.REJECTED: _("The rule's wording for an unacceptable clause matched (quoted)."),
}


def rationale_kind(*, model: str, outcome: str, reason: str, rationale: str = "") -> str:
    """How a page shows a rationale, whatever the reader's language: ``text`` as written (a
    model's own words, a rule's question in its playbook's language), ``match`` as the offline
    engine's match said in the reader's language (the matched words are quoted beside it),
    ``citation`` as the offline citation check's findings said in the reader's language, or
    ``reason``: not at all, since the reason's label says it."""
    if model not in OWN_ACTORS:
        return "text"
    if reason in _LABELS and reason != NO_OFFLINE_VERDICT:
        return "reason"
    if model == "offline" and not reason and outcome in _OFFLINE_MATCH:
        return "citation" if rationale.startswith(citations.RATIONALE_PREFIX) else "match"
    return "text"


def rationale_shown(verification: object) -> str:
    """A settled verification's rationale in the reader's language (``rationale_kind``)."""
    outcome = getattr(verification, "outcome", "")
    kind = rationale_kind(
        model=getattr(verification, "model", ""),
        outcome=outcome,
        reason=getattr(verification, "reason", ""),
        rationale=getattr(verification, "rationale", ""),
    )
    if kind == "reason":
        return ""
    if kind == "match":
        return str(_OFFLINE_MATCH[outcome])
    if kind == "citation":
        findings = citation_findings(verification)
        if findings:
            return " ".join(
                [str(_CITATION_CHECK), *(str(_CITATION[f.wording]) % f.as_dict() for f in findings)]
            )
    return str(getattr(verification, "rationale", ""))


# The citation check's findings (``rules.citations.WORDING``, the same English sentences).
_CITATION_CHECK = _("Citation check:")
_CITATION: dict[str, Any] = {
    citations.REPEALED: _(
        "%(law)s is no longer in force since %(date)s, replaced by %(successor)s."
    ),
    "repealed_chain": _(
        "%(law)s is no longer in force since %(date)s, replaced by %(successor)s; "
        "the law in force now is %(current)s."
    ),
    "repealed_alone": _("%(law)s is no longer in force since %(date)s."),
    citations.NOT_YET_IN_FORCE: _("%(law)s takes effect on %(date)s; it is not yet in force."),
    citations.BEYOND_LAST_ARTICLE: _(
        "%(citation)s: beyond the last article (%(last)s) of %(law)s."
    ),
    citations.NO_ARTICLE: _("%(citation)s: cites %(law)s without an article number."),
    citations.UNKNOWN_LAW: _("%(citation)s: not in the table of laws, so not checked."),
    citations.NO_LAW_NAMED: _("%(citation)s: names no law, so there is nothing to check."),
    citations.IN_FORCE: _("%(citation)s: %(law)s is in force and has %(last)s articles."),
    "in_force_uncounted": _(
        "%(citation)s: %(law)s is in force (its number of articles is not in the table)."
    ),
}


def citation_findings(verification: object) -> list[citations.Finding]:
    """The findings an offline citation verdict rests on, read again from its quote as of the
    day it was settled: the same findings its stored (English) rationale gives."""
    completed = getattr(verification, "completed_at", None)
    on = completed.date() if completed is not None else date.today()
    quote = normalise(str(getattr(verification, "quote", ""))).text
    return list(citations.citation_verdict(citations.check_citations(quote, today=on)).findings)


def citation_labels() -> dict[str, Any]:
    """The citation check's sentences in the active language (for page scripts)."""
    return {
        "check": str(_CITATION_CHECK),
        "findings": {wording: str(label) for wording, label in _CITATION.items()},
    }


def offline_match_labels() -> dict[str, str]:
    """The offline engine's match, per outcome, in the active language (for page scripts)."""
    return {outcome: str(label) for outcome, label in _OFFLINE_MATCH.items()}


def rationale_for_side(verification: object, sides: Sides | None) -> str:
    """``rationale_shown``, naming the parties by their defined names where the words are our
    own (a rule's question, which speaks of "our client"); a model's words stay as written."""
    shown = rationale_shown(verification)
    if sides is None or getattr(verification, "model", "") not in OWN_ACTORS:
        return shown
    other = sides.counterparty.term if sides.counterparty else None
    return speak_for(shown, client=sides.client.term, counterparty=other)
