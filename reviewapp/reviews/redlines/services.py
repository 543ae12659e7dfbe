"""Writing redlines: save a draft, accept it into the review, withdraw it. Each is one audit
event (`redline.saved`, `redline.accepted`, `redline.withdrawn`), which is the redline's history.

Allowed moves, in one table: a draft may be accepted or withdrawn; an accepted redline may be
withdrawn, and editing it makes it a draft again (it must be accepted anew); a withdrawn one
comes back as a draft when it is saved again.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from reviewapp.audit.models import AuditAction
from reviewapp.audit.recorders import audit_redline_event
from reviewapp.contracts.models import Passage
from reviewapp.reviews.acting_for.selectors import acting_sides
from reviewapp.reviews.models import Review, RuleFiring, Verification
from reviewapp.reviews.redlines.models import Redline, RedlineSource, RedlineStatus
from reviewapp.reviews.redlines.proposals import issue_categories, proposal_for
from reviewapp.reviews.redlines.selectors import user_may_edit_redlines
from reviewapp.rules.services import playbook_compiled

D, A, W = RedlineStatus.DRAFT, RedlineStatus.ACCEPTED, RedlineStatus.WITHDRAWN
TRANSITIONS: dict[str, frozenset[str]] = {
    "save": frozenset({D, A, W}),  # -> DRAFT
    "accept": frozenset({D}),  # -> ACCEPTED
    "withdraw": frozenset({D, A}),  # -> WITHDRAWN
}
MAX_REPLACEMENT_CHARS = 20_000
MAX_COMMENT_CHARS = 5_000


class RedlineConflict(Exception):
    """The move is not allowed from the redline's status, or another accepted redline already
    changes these words."""


def _check_editor(user: Any, review: Review) -> None:
    if not user_may_edit_redlines(user=user, matter_id=review.contract.matter_id):
        raise PermissionDenied(_("Only the matter's lawyers may change redlines."))


@transaction.atomic
def redline_save(
    *,
    review: Review,
    passage: Passage,
    category: str,
    replacement: str,
    user: Any,
    span: tuple[int, int] | None = None,
    counterparty_comment: str | None = None,
) -> Redline:
    """Create or change the draft redline of one issue (the category flagged on the passage).

    `span` (offsets into the contract text) defaults to the whole passage and must lie within it.
    `counterparty_comment` (None: as it was) goes to the other side with the change; changing
    it, like changing the words, makes an accepted redline a draft to be accepted anew.
    """
    _check_editor(user, review)
    rule_id = _issue_rule(review, passage, category)
    start, end = span if span is not None else (passage.start, passage.end)
    if not passage.start <= start <= end <= passage.end:
        raise ValidationError(_("The words to replace must lie within the passage."))
    if len(replacement) > MAX_REPLACEMENT_CHARS:
        raise ValidationError(_("The replacement wording is too long."))
    if counterparty_comment is not None and len(counterparty_comment) > MAX_COMMENT_CHARS:
        raise ValidationError(_("The comment for the counterparty is too long."))
    redline = Redline.objects.select_for_update().filter(passage=passage, category=category).first()
    before = redline.status if redline else None
    if redline is None:
        redline = Redline(review=review, passage=passage, category=category, rule_id=rule_id)
    elif redline.status not in TRANSITIONS["save"]:
        raise RedlineConflict(_("This redline cannot be changed."))
    original = review.contract.text[start:end]
    words_changed = (redline.span_start, redline.span_end, redline.replacement) != (
        start,
        end,
        replacement,
    )
    comment = redline.counterparty_comment if counterparty_comment is None else counterparty_comment
    changed = words_changed or comment != redline.counterparty_comment
    redline.span_start, redline.span_end, redline.original_text = start, end, original
    if before is None or words_changed:
        redline.source = _source_of(redline, replacement)
    redline.replacement, redline.counterparty_comment = replacement, comment
    redline.status = D if changed or before != A else A
    redline.author = user
    if redline.status == D:
        redline.accepted_by, redline.accepted_at = None, None
    redline.save()
    _record(redline, user, AuditAction.REDLINE_SAVED, before)
    return redline


def _issue_rule(review: Review, passage: Passage, category: str) -> str:
    if passage.contract_id != review.contract_id:
        raise ValidationError(_("This passage is not part of the review's contract."))
    for issue_category, rule_id in issue_categories(review=review, passage=passage):
        if issue_category == category:
            return rule_id
    raise ValidationError(_("No rule flagged this category on the passage."))


def _source_of(redline: Redline, replacement: str) -> str:
    """A redline keeps the source of its proposal while its words are the proposal's."""
    proposal = redline_proposal(
        review=redline.review, passage=redline.passage, category=redline.category
    )
    return proposal.source if replacement == proposal.replacement else RedlineSource.LAWYER


def redline_proposal(*, review: Review, passage: Passage, category: str) -> Any:
    """What a redline of this issue starts from (see `proposals`)."""
    rule_id = next(
        (r for c, r in issue_categories(review=review, passage=passage) if c == category), ""
    )
    match = (
        RuleFiring.objects.filter(review=review, passage=passage, rule_id=rule_id)
        .order_by("match_start")
        .values_list("match_start", "match_end")
        .first()
    )
    return proposal_for(
        compiled=playbook_compiled(review.playbook_version),
        passage=passage,
        text=review.contract.text[passage.start : passage.end],
        category=category,
        rule_id=rule_id,
        verification=Verification.objects.filter(passage=passage).first(),
        match=match,
        sides=acting_sides(review.contract),
        preamble=review.contract.text,
    )


@transaction.atomic
def redline_accept(*, redline_id: int, user: Any) -> Redline:
    """Accept a draft into the review: it goes into the exported Word file as a tracked change
    by `user`, dated now. Refused when it changes nothing or overlaps another accepted one."""
    redline = (
        Redline.objects.select_for_update().select_related("review__contract").get(pk=redline_id)
    )
    _check_editor(user, redline.review)
    if redline.status not in TRANSITIONS["accept"]:
        raise RedlineConflict(_("Only a draft redline can be accepted."))
    if redline.replacement == redline.original_text:
        raise ValidationError(_("The replacement is the same as the original wording."))
    overlapping = (
        Redline.objects.filter(review=redline.review, status=A)
        .exclude(pk=redline.pk)
        .filter(span_start__lt=max(redline.span_end, redline.span_start + 1))
        .filter(span_end__gt=redline.span_start)
        .first()
    )
    if overlapping is not None:
        raise RedlineConflict(
            _("An accepted redline (%(category)s) already changes these words: edit that one.")
            % {"category": overlapping.category}
        )
    before = redline.status
    redline.status, redline.accepted_by, redline.accepted_at = A, user, timezone.now()
    redline.save(update_fields=["status", "accepted_by", "accepted_at", "updated_at"])
    _record(redline, user, AuditAction.REDLINE_ACCEPTED, before)
    return redline


@transaction.atomic
def redline_withdraw(*, redline_id: int, user: Any) -> Redline:
    """Take a redline out of the review (kept, with its history); saving it again revives it."""
    redline = (
        Redline.objects.select_for_update().select_related("review__contract").get(pk=redline_id)
    )
    _check_editor(user, redline.review)
    if redline.status not in TRANSITIONS["withdraw"]:
        raise RedlineConflict(_("This redline is already withdrawn."))
    before = redline.status
    redline.status, redline.accepted_by, redline.accepted_at = W, None, None
    redline.save(update_fields=["status", "accepted_by", "accepted_at", "updated_at"])
    _record(redline, user, AuditAction.REDLINE_WITHDRAWN, before)
    return redline


def _record(redline: Redline, user: Any, action: str, before: str | None) -> None:
    audit_redline_event(redline=redline, user=user, action=action, previous_status=before)
