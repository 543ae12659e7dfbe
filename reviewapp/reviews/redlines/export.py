"""The contract as it goes back: its own Word file with every accepted redline as tracked
changes (`docx_tracked`), cut to the words that differ (`diff.word_edits`), in two kinds:

- for the counterparty (`redline.docx`): the changes and only the comments a lawyer wrote for
  the other side (`Redline.counterparty_comment`), each on its own change;
- for the firm (`redline-internal.docx`): the same file with every issue as a comment on its
  words as well (rule, question, verdict: internal notes that must not leave the firm).

Changes and comments are by "<lawyer's full name> (<firm>)", the firm being
`CLAUSEWISE_FIRM_NAME` or the contract's organisation; never a username.

A PDF or text upload, or a Word file whose text is no longer the one the review read, gets a
generated Word file of the contract's text carrying the same changes and comments. Nothing is
lost: a redline that cannot be tracked (it runs from one table cell into another) becomes a
comment with the proposed wording, in both kinds.
"""

from __future__ import annotations

import io
import logging
import zipfile
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

from reviewapp.contracts.models import Contract
from reviewapp.reviews.exports.model import Issue, ReviewExport
from reviewapp.reviews.redlines.diff import word_edits
from reviewapp.reviews.redlines.labels import full_name
from reviewapp.reviews.redlines.models import Redline
from reviewapp.reviews.redlines.selectors import accepted_redlines
from reviewapp.text.wordml import (
    CONTENT_TYPE,
    Change,
    Note,
    TextMismatch,
    docx_from_text,
    docx_tracked,
    xml_safe,
)

__all__ = [
    "CONTENT_TYPE",
    "redline_changes",
    "redline_counterparty_render",
    "redline_docx_render",
    "redline_internal_render",
]
logger = logging.getLogger(__name__)


def redline_counterparty_render(export: ReviewExport) -> bytes:
    return redline_docx_render(export, internal=False)


def redline_internal_render(export: ReviewExport) -> bytes:
    return redline_docx_render(export, internal=True)


def redline_docx_render(export: ReviewExport, *, internal: bool) -> bytes:
    """The tracked contract; with `internal`, every issue as a comment too."""
    contract = Contract.objects.get(pk=export.contract_id)
    firm = firm_name(export.organisation)
    redlines = accepted_redlines(review_id=export.review_id)
    changes = redline_changes(redlines, firm=firm)
    notes = [_counterparty_note(r, firm) for r in redlines if r.counterparty_comment.strip()]
    if internal:
        notes += [_issue_note(issue, redlines, firm) for issue in export.issues]
    original = _original_docx(contract)
    if original is not None:
        try:
            return _tracked(original, contract.text, changes, notes, redlines, firm, internal)
        except TextMismatch as mismatch:
            logger.warning("contract %s: tracked export on its text: %s", contract.pk, mismatch)
        except Exception:  # python-docx and lxml raise many kinds of errors on odd packages
            logger.exception("contract %s: the Word file could not be rewritten", contract.pk)
        if internal:
            notes.insert(0, _mismatch_note(firm))
    generated = docx_from_text(contract.text, page_starts=[s for s, _e in contract.page_spans])
    return _tracked(generated, xml_safe(contract.text), changes, notes, redlines, firm, internal)


def firm_name(organisation: str) -> str:
    return settings.CLAUSEWISE_FIRM_NAME or organisation


def signature(user: Any, firm: str) -> str:
    """ "Lee Lawyer (Acme LLP)"; the firm alone for someone without a full name."""
    name = full_name(user)
    if name and firm:
        return f"{name} ({firm})"
    return name or firm or "Clausewise"


def _initials(user: Any) -> str:
    name = full_name(user)
    return "".join(word[0] for word in name.split()[:3]).upper()


def redline_changes(redlines: list[Redline], *, firm: str = "") -> list[Change]:
    """The changes of the accepted redlines, each cut to the words that differ: the words that
    stay between two edits of one clause stay plain text."""
    changes = []
    for redline in redlines:
        for edit in word_edits(redline.original_text, redline.replacement):
            changes.append(
                Change(
                    start=redline.span_start + edit.start,
                    end=redline.span_start + edit.end,
                    replacement=edit.replacement,
                    author=signature(redline.accepted_by, firm),
                    date=redline.accepted_at or redline.updated_at,
                    key=redline.pk,
                )
            )
    return changes


def _tracked(
    content: bytes,
    text: str,
    changes: list[Change],
    notes: list[Note],
    redlines: list[Redline],
    firm: str,
    internal: bool,
) -> bytes:
    result = docx_tracked(content=content, text=text, changes=changes, notes=notes)
    if not result.unplaced:
        return result.content
    # A redline is tracked whole or not at all: one whose edit could not be placed is left out,
    # and its wording becomes a comment.
    left_out = {change.key for change in result.unplaced}
    kept = [change for change in changes if change.key not in left_out]
    extra = [_unplaced_note(r, firm, internal) for r in redlines if r.pk in left_out]
    return docx_tracked(content=content, text=text, changes=kept, notes=[*notes, *extra]).content


def _original_docx(contract: Contract) -> bytes | None:
    if contract.kind != "docx" or not contract.file:
        return None
    try:
        with contract.file.open("rb") as handle:
            content = handle.read()
    except OSError:
        logger.warning("contract %s: original file not readable", contract.pk)
        return None
    return content if zipfile.is_zipfile(io.BytesIO(content)) else None


def _counterparty_note(redline: Redline, firm: str) -> Note:
    """The lawyer's comment for the other side, on the redline's change."""
    return Note(
        start=redline.span_start,
        end=redline.span_end,
        lines=tuple(redline.counterparty_comment.strip().splitlines()),
        author=signature(redline.accepted_by, firm),
        initials=_initials(redline.accepted_by),
        on_change=redline.pk,
    )


def _issue_note(issue: Issue, redlines: list[Redline], firm: str) -> Note:
    words = next((m for m in issue.matches if m.end > m.start), None)
    start, end = (words.start, words.end) if words else (issue.passage.start, issue.passage.end)
    lines = [f"{issue.category} ({issue.severity})"]
    if issue.question:
        lines.append(_("Question: %(q)s") % {"q": issue.question})
    verification = issue.verification
    if verification is not None and verification.outcome:
        rationale = issue.rationale or verification.rationale
        lines.append(f"{verification.outcome}: {rationale}" if rationale else verification.outcome)
        if verification.question:
            lines.append(_("Question for the counterparty: %(q)s") % {"q": verification.question})
    for redline in redlines:
        if redline.passage_id == issue.passage.pk and redline.category == issue.category:
            lines.append(
                _("Redline accepted by %(who)s.") % {"who": signature(redline.accepted_by, firm)}
            )
    return Note(start=start, end=end, lines=tuple(lines), author=_review_author(firm))


def _review_author(firm: str) -> str:
    """The review's own notes are by the app, for the firm."""
    return f"Clausewise ({firm})" if firm else "Clausewise"


def _unplaced_note(redline: Redline, firm: str, internal: bool) -> Note:
    """The wording of a redline that could not be tracked; the category the review gave it
    (the firm's own reading of the clause) only in the firm's file."""
    heading = (
        _("Proposed wording (%(category)s), not shown as a tracked change:")
        % {"category": redline.category}
        if internal
        else _("Proposed wording, not shown as a tracked change:")
    )
    return Note(
        start=redline.span_start,
        end=redline.span_end,
        lines=(heading, redline.replacement),
        author=signature(redline.accepted_by, firm),
        initials=_initials(redline.accepted_by),
    )


def _mismatch_note(firm: str) -> Note:
    return Note(
        start=0,
        end=1,
        lines=(
            _(
                "This document is the contract's text as Clausewise read it: the uploaded Word "
                "file could not be matched to that text."
            ),
        ),
        author=_review_author(firm),
    )
