"""One read-only model of a review that every export format renders.

Built by `review_export_model` in a fixed number of queries, whatever the size of the review.
An *issue* is one category a routing rule flagged on one passage, whichever of the category's
rules fired (its `.terms`, `.heading` and `.context` rules make one issue), as the draft counts
issues; a secondary rule of another category only names a question on the passage
(`PassagePart.context_rule_ids`). A passage flagged for several
categories carries several issues, which share the passage's state, verification and lawyer
decision, each with its own rationale.

The sentences a reader reads (who verified, the lawyer's decision, the engine statements) are in
the active language; the JSON and CSV exports render them in English (``formats``), the Word
memo in the reader's.

Text that comes from a PDF keeps the extractor's line breaks and runs of spaces; `export_text`
is how every renderer that lays text out for a reader (CSV cells, Word) prints it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp.contracts.models import PassageState
from reviewapp.reviews.models import Engine, ReviewStatus
from reviewapp.reviews.reasons import reason_label
from reviewapp.rules.display_labels import state_label
from reviewapp.text.facts.model import Fact

UNSET = "—"
_WHITESPACE = re.compile(r"\s+")


def export_text(text: str) -> str:
    """Runs of white space (line breaks of a PDF text layer, padding) as one space."""
    return _WHITESPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class VerificationPart:
    status: str
    outcome: str
    engine: str
    model: str
    risk: str
    rationale: str
    quote: str
    redline: str
    question: str
    reason: str
    completed_at: datetime | None

    @property
    def verified_by(self) -> str:
        """Who settled the passage, in words (the `model` column holds an actor name)."""
        return verifier_label(engine=self.engine, actor=self.model)


@dataclass(frozen=True)
class LawyerPart:
    """The passage's latest queue item: open, claimed, or decided."""

    status: str
    decision: str
    note: str
    decided_by: str
    decided_at: datetime | None
    claimed_by: str


@dataclass(frozen=True)
class PassagePart:
    pk: int
    index: int
    number: str
    heading: str
    page: int
    start: int
    end: int
    state: str
    text: str
    # Secondary rules of categories no routing rule flagged here: questions, not issues.
    context_rule_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Issue:
    passage: PassagePart
    rule_id: str  # the rule that routed the passage for this category
    rule_ids: tuple[str, ...]  # every rule of the category that fired on the passage
    category: str
    severity: str
    action: str
    question: str
    matches: tuple[Match, ...]
    verification: VerificationPart | None
    lawyer: LawyerPart | None
    rationale: str = ""  # this category's own, not the passage's other categories'


@dataclass(frozen=True)
class DraftPart:
    engine: str
    status: str
    models: tuple[str, ...]
    summary: str  # as stored (the contract's language for an offline draft)
    summary_shown: str  # as the page shows it: an offline summary in the reader's language
    key_facts: dict[str, Fact]  # reviewapp.text.facts.model
    issues: list[dict[str, Any]]
    flags: list[dict[str, Any]]
    error: str


@dataclass(frozen=True)
class ReviewExport:
    review_id: int
    status: str
    engine: str
    playbook_version: str
    created_at: datetime
    contract_id: int
    contract_name: str
    matter: str
    organisation: str
    language: str
    contract_type: str
    pages: int
    state_counts: dict[str, int]
    draft: DraftPart | None
    issues: list[Issue]
    generated_at: datetime = field(default_factory=timezone.now)

    @property
    def pending_count(self) -> int:
        return self.state_counts.get(PassageState.PENDING, 0)

    @property
    def awaiting_lawyer_count(self) -> int:
        """NEEDS_HUMAN_REVIEW passages, and REJECTED ones no lawyer has decided yet."""
        undecided_rejections = sum(
            1
            for issue in self._first_issues
            if issue.passage.state == PassageState.REJECTED and not _decided(issue)
        )
        return self.state_counts.get(PassageState.NEEDS_HUMAN_REVIEW, 0) + undecided_rejections

    @property
    def in_progress(self) -> bool:
        return self.status != ReviewStatus.COMPLETE or self.pending_count > 0

    @property
    def flagged_passages(self) -> list[PassagePart]:
        return [issue.passage for issue in self._first_issues]

    def issues_of(self, passage: PassagePart) -> list[Issue]:
        return [issue for issue in self.issues if issue.passage.pk == passage.pk]

    @property
    def _first_issues(self) -> list[Issue]:
        seen: set[int] = set()
        first = []
        for issue in self.issues:
            if issue.passage.pk not in seen:
                seen.add(issue.passage.pk)
                first.append(issue)
        return first

    def engine_statements(self) -> dict[str, str]:
        """Which engine produced each part: the draft, the verifications, the decisions."""
        return {
            "draft": draft_statement(self.draft),
            "verification": verification_statement(self.issues),
            "decisions": decision_statement(self.issues),
        }


def _decided(issue: Issue) -> bool:
    return issue.lawyer is not None and issue.lawyer.status == "DONE"


def verifier_label(*, engine: str, actor: str) -> str:
    if not actor:
        return _("verification pending")
    if actor == "rule":
        return _("no verifier: a rule sends this passage to a lawyer")
    if actor == "system":
        return _("no verdict: the model could not be reached")
    if actor == "offline" or engine == Engine.OFFLINE:
        return _("offline engine (no language model)")
    return f"Claude {actor}"


def draft_statement(draft: DraftPart | None) -> str:
    if draft is None or draft.status != "COMPLETE":
        status = draft.status.lower() if draft else "missing"
        return _("No complete draft yet (draft %(status)s).") % {"status": status}
    if draft.engine == Engine.OFFLINE:
        return _("Drafted by the offline engine: no language model was used.")
    models = ", ".join(draft.models) or _("(model not recorded)")
    return _("Drafted by Claude %(models)s.") % {"models": models}


def verification_statement(issues: list[Issue]) -> str:
    by_passage = {i.passage.pk: i.verification for i in issues if i.verification is not None}
    if not by_passage:
        return _("No passage needed a verification.")
    counts = Counter(v.verified_by for v in by_passage.values())
    parts = [f"{label}: {count}" for label, count in sorted(counts.items())]
    return _("Passages verified — %(counts)s.") % {"counts": "; ".join(parts)}


def decision_statement(issues: list[Issue]) -> str:
    by_passage = {i.passage.pk: i.lawyer for i in issues if i.lawyer and i.lawyer.status == "DONE"}
    if not by_passage:
        return _("No lawyer decisions yet.")
    counts = Counter(lawyer.decided_by or UNSET for lawyer in by_passage.values())
    parts = [f"{name}: {count}" for name, count in sorted(counts.items())]
    return _("Decided by lawyers — %(counts)s.") % {"counts": "; ".join(parts)}


def lawyer_label(lawyer: LawyerPart | None) -> str:
    if lawyer is None:
        return UNSET
    if lawyer.status == "DONE":
        who = {"who": lawyer.decided_by or UNSET}
        said = {
            "accept": _("Accepted by %(who)s"),
            "not_this": _("Not this kind of clause, by %(who)s"),
        }.get(lawyer.decision, _("Rejected by %(who)s"))
        note = f": {lawyer.note}" if lawyer.note else ""
        return said % who + note
    if lawyer.status == "CLAIMED":
        return _("Claimed by %(who)s, not decided yet") % {"who": lawyer.claimed_by or UNSET}
    return _("Waiting for a lawyer")


def verification_label(verification: VerificationPart | None) -> str:
    if verification is None:
        return UNSET
    if not verification.outcome:
        return _("Verification pending")
    outcome = state_label(verification.outcome)
    return f"{outcome}: {reason_label(verification.reason)}" if verification.reason else outcome
