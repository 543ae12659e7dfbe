"""Why a passage went to a lawyer: the codes stored on verifications and queue items, and the
sentence a lawyer reads for each (exports and the API keep the code); and the verifier's
rationale as a lawyer reads it."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from reviewapp.contracts.models import PassageState
from reviewapp.llm import NO_VERDICT, QUOTE_NOT_FOUND
from reviewapp.reviews.acting_for.selectors import Sides
from reviewapp.rules.engine.side import speak_for

LLM_UNAVAILABLE = "LLM_UNAVAILABLE"
RULE_REQUIRES_HUMAN = "RULE_REQUIRES_HUMAN"
PLANTED_INSTRUCTIONS = "PLANTED_INSTRUCTIONS"
NO_OFFLINE_VERDICT = "NO_OFFLINE_VERDICT"
MODEL_RAISED = "MODEL_RAISED"
CATEGORY_NOT_PRESENT = "CATEGORY_NOT_PRESENT"
FLAG_REOPENED = "FLAG_REOPENED"
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


def rationale_kind(*, model: str, outcome: str, reason: str) -> str:
    """How a page shows a rationale, whatever the reader's language: ``text`` as written (a
    model's own words, a rule's question in its playbook's language), ``match`` as the offline
    engine's match said in the reader's language (the matched words are quoted beside it), or
    ``reason``: not at all, since the reason's label says it."""
    if model not in OWN_ACTORS:
        return "text"
    if reason in _LABELS and reason != NO_OFFLINE_VERDICT:
        return "reason"
    if model == "offline" and not reason and outcome in _OFFLINE_MATCH:
        return "match"
    return "text"


def rationale_shown(verification: object) -> str:
    """A settled verification's rationale in the reader's language (``rationale_kind``)."""
    outcome = getattr(verification, "outcome", "")
    kind = rationale_kind(
        model=getattr(verification, "model", ""),
        outcome=outcome,
        reason=getattr(verification, "reason", ""),
    )
    if kind == "reason":
        return ""
    if kind == "match":
        return str(_OFFLINE_MATCH[outcome])
    return str(getattr(verification, "rationale", ""))


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
