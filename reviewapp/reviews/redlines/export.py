"""The contract as the counterparty will get it back: its own Word file with every accepted
redline as tracked changes, cut to the words that differ (`diff.word_edits`), and every issue as
a comment on its words (`docx_tracked`).

A PDF or text upload, or a Word file whose text is no longer the one the review read, gets a
generated Word file of the contract's text carrying the same changes and comments. Nothing is
lost: a change that cannot be tracked (it runs from one table cell into another) becomes a
comment with the proposed wording.
"""

from __future__ import annotations

import io
import logging
import zipfile
from typing import Any

from django.utils.translation import gettext as _

from reviewapp.contracts.models import Contract
from reviewapp.reviews.exports.docx_tracked import (
    CONTENT_TYPE,
    Change,
    Note,
    TextMismatch,
    docx_from_text,
    docx_tracked,
    xml_safe,
)
from reviewapp.reviews.exports.model import Issue, ReviewExport
from reviewapp.reviews.redlines.diff import word_edits
from reviewapp.reviews.redlines.models import Redline
from reviewapp.reviews.redlines.selectors import accepted_redlines

__all__ = ["CONTENT_TYPE", "redline_docx_render", "redline_changes"]
logger = logging.getLogger(__name__)


def redline_docx_render(export: ReviewExport) -> bytes:
    contract = Contract.objects.get(pk=export.contract_id)
    redlines = accepted_redlines(review_id=export.review_id)
    changes = redline_changes(redlines)
    notes = [_issue_note(issue, redlines) for issue in export.issues]
    original = _original_docx(contract)
    if original is not None:
        try:
            return _tracked(original, contract.text, changes, notes, redlines)
        except TextMismatch as mismatch:
            logger.warning("contract %s: tracked export on its text: %s", contract.pk, mismatch)
        except Exception:  # python-docx and lxml raise many kinds of errors on odd packages
            logger.exception("contract %s: the Word file could not be rewritten", contract.pk)
        notes.insert(0, _mismatch_note())
    generated = docx_from_text(contract.text, page_starts=[s for s, _e in contract.page_spans])
    return _tracked(generated, xml_safe(contract.text), changes, notes, redlines)


def redline_changes(redlines: list[Redline]) -> list[Change]:
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
                    author=_name(redline.accepted_by),
                    date=redline.accepted_at or redline.updated_at,
                    key=redline.pk,
                )
            )
    return changes


def _tracked(
    content: bytes, text: str, changes: list[Change], notes: list[Note], redlines: list[Redline]
) -> bytes:
    result = docx_tracked(content=content, text=text, changes=changes, notes=notes)
    if not result.unplaced:
        return result.content
    # A redline is tracked whole or not at all: one whose edit could not be placed is left out,
    # and its wording becomes a comment.
    left_out = {change.key for change in result.unplaced}
    kept = [change for change in changes if change.key not in left_out]
    extra = [_unplaced_note(r) for r in redlines if r.pk in left_out]
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


def _issue_note(issue: Issue, redlines: list[Redline]) -> Note:
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
            lines.append(_("Redline accepted by %(who)s.") % {"who": _name(redline.accepted_by)})
    return Note(start=start, end=end, lines=tuple(lines))


def _unplaced_note(redline: Redline) -> Note:
    return Note(
        start=redline.span_start,
        end=redline.span_end,
        lines=(
            _("Proposed wording (%(category)s), not shown as a tracked change:")
            % {"category": redline.category},
            redline.replacement,
        ),
        author=_name(redline.accepted_by),
        initials="",
    )


def _mismatch_note() -> Note:
    return Note(
        start=0,
        end=1,
        lines=(
            _(
                "This document is the contract's text as Clausewise read it: the uploaded Word "
                "file could not be matched to that text."
            ),
        ),
    )


def _name(user: Any) -> str:
    if user is None:
        return "Clausewise"
    return user.get_full_name() or user.get_username()
