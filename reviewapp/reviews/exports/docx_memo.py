"""The Word review memo: summary, key facts, an issue table, and every issue (a passage and a
category) as one Word comment anchored on the text of the clause it concerns (section "Flagged
clauses"). Clause text is printed with `export_text`: no PDF line breaks or runs of spaces.
The memo is for people: categories, facts, severities and states are in the reader's language
(``rules.labels``), as on the page; rule ids stay as written."""

from __future__ import annotations

import io
import re
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from docx import Document
from docx.document import Document as DocumentObject
from docx.oxml.ns import qn
from docx.text.run import Run

from reviewapp.reviews.exports.model import (
    UNSET,
    Issue,
    PassagePart,
    ReviewExport,
    export_text,
    lawyer_label,
    verification_label,
)
from reviewapp.reviews.key_facts import fact_shown
from reviewapp.reviews.models import ReviewStatus
from reviewapp.reviews.reasons import rationale_kind, rationale_shown
from reviewapp.rules.display_labels import category_label, severity_label, state_label

CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
AUTHOR, INITIALS = "Clausewise", "CW"
EAST_ASIAN_FONT = "SimSun"  # so Chinese contracts render with a CJK font in Word
# Characters XML 1.0 cannot carry (PDF text often holds form feeds between pages).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def docx_memo_render(export: ReviewExport) -> bytes:
    document = Document()
    _east_asian_font(document)
    _header(document, export)
    _summary(document, export)
    _key_facts(document, export)
    _issue_table(document, export)
    _draft_recommendations(document, export)
    _flagged_clauses(document, export)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def xml_safe(text: Any) -> str:
    return _NOT_XML.sub(" ", str(text))


def _east_asian_font(document: DocumentObject) -> None:
    rpr = document.styles["Normal"].element.get_or_add_rPr()
    rpr.get_or_add_rFonts().set(qn("w:eastAsia"), EAST_ASIAN_FONT)


def _header(document: DocumentObject, export: ReviewExport) -> None:
    document.add_heading(_("Contract review memo"), level=0)
    details = [
        (_("Contract"), export.contract_name),
        (_("Matter"), f"{export.matter} ({export.organisation})"),
        (_("Date"), export.generated_at.strftime("%Y-%m-%d %H:%M UTC")),
        (
            _("Review"),
            f"#{export.review_id} · {_status_label(export.status)} · {export.playbook_version}",
        ),
    ]
    statements = export.engine_statements()
    details += [
        (_("Draft"), statements["draft"]),
        (_("Verification"), statements["verification"]),
        (_("Lawyer decisions"), statements["decisions"]),
    ]
    for label, value in details:
        paragraph = document.add_paragraph()
        paragraph.add_run(f"{label}: ").bold = True
        paragraph.add_run(xml_safe(value))
    if export.in_progress:
        _in_progress(document, export)


def _in_progress(document: DocumentObject, export: ReviewExport) -> None:
    pending, waiting = export.pending_count, export.awaiting_lawyer_count
    text = ngettext(
        "Review in progress: %(n)d passage still pending",
        "Review in progress: %(n)d passages still pending",
        pending,
    ) % {"n": pending}
    text += "; " + _("%(n)d waiting for a lawyer.") % {"n": waiting}
    document.add_paragraph().add_run(text).bold = True


def _summary(document: DocumentObject, export: ReviewExport) -> None:
    document.add_heading(_("Summary"), level=1)
    draft = export.draft
    if draft is None or draft.status != "COMPLETE":
        document.add_paragraph(_("No summary yet: the draft is not complete."))
        return
    document.add_paragraph(xml_safe(draft.summary_shown))
    for flag in draft.flags:
        message = f"{flag.get('message', '')} “{flag.get('text', '')}”"
        document.add_paragraph(xml_safe(message), style="List Bullet")


def _key_facts(document: DocumentObject, export: ReviewExport) -> None:
    document.add_heading(_("Key facts"), level=1)
    facts = export.draft.key_facts if export.draft else {}
    if not facts:
        document.add_paragraph(_("No key facts were found."))
        return
    # as the page shows them: "about" an estimated date, "(unsure)" after a learned guess
    rows = [
        (category_label(name), fact_shown(fact) or _fact_text(fact.value))
        for name, fact in facts.items()
    ]
    _table(document, [_("Fact"), _("Value")], rows)


def _fact_text(value: Any) -> str:
    if isinstance(value, list):
        return "; ".join(_fact_text(item) for item in value) or UNSET
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_fact_text(v)}" for k, v in value.items()) or UNSET
    return UNSET if value in (None, "") else str(value)


def _issue_table(document: DocumentObject, export: ReviewExport) -> None:
    document.add_heading(_("Issues"), level=1)
    if not export.issues:
        document.add_paragraph(_("No trigger rule fired on this contract."))
        return
    headers = [
        _("Passage"),
        _("Category"),
        _("Rule"),
        _("Severity"),
        _("State"),
        _("Verification"),
        _("Lawyer decision"),
    ]
    _table(document, headers, [_issue_row(issue) for issue in export.issues])


def _issue_row(issue: Issue) -> list[str]:
    verification = issue.verification
    outcome = verification_label(verification)
    if verification and verification.outcome:
        outcome += f" — {verification.verified_by}. {export_text(_rationale(issue))}".rstrip()
    return [
        _passage_label(issue.passage),
        category_label(issue.category),
        ", ".join(issue.rule_ids),
        severity_label(issue.severity),
        state_label(issue.passage.state),
        outcome,
        lawyer_label(issue.lawyer),
    ]


def _draft_recommendations(document: DocumentObject, export: ReviewExport) -> None:
    issues = export.draft.issues if export.draft and export.draft.status == "COMPLETE" else []
    if not issues:
        return
    document.add_heading(_("Recommendations of the draft"), level=1)
    rows = [
        [
            f"#{i.get('passage', '')}",
            severity_label(str(i.get("risk") or "")),
            category_label(str(i.get("title") or "")),  # an offline draft's title is its category
            i.get("recommendation"),
        ]
        for i in issues
    ]
    _table(document, [_("Passage"), _("Risk"), _("Issue"), _("Recommendation")], rows)


def _flagged_clauses(document: DocumentObject, export: ReviewExport) -> None:
    document.add_heading(_("Flagged clauses"), level=1)
    passages = export.flagged_passages
    if not passages:
        document.add_paragraph(_("No clause was flagged."))
        return
    for passage in passages:
        # A bold line rather than a heading style: a style lookup per clause costs seconds
        # on a contract with hundreds of flagged clauses.
        document.add_paragraph().add_run(xml_safe(_passage_title(passage))).bold = True
        run = document.add_paragraph().add_run(xml_safe(export_text(passage.text)))
        for issue in export.issues_of(passage):
            _comment(document, run, issue)


def _comment(document: DocumentObject, run: Run, issue: Issue) -> None:
    lines = _comment_lines(issue)
    comment = document.add_comment(run, text=lines[0], author=AUTHOR, initials=INITIALS)
    for line in lines[1:]:
        comment.add_paragraph(line)


def _comment_lines(issue: Issue) -> list[str]:
    verification = issue.verification
    category, severity = category_label(issue.category), severity_label(issue.severity)
    lines = [f"{', '.join(issue.rule_ids)} — {category} ({severity})"]
    if issue.question:
        lines.append(_("Question: %(q)s") % {"q": issue.question})
    if verification is None:
        state = state_label(issue.passage.state)
        lines.append(_("Outcome: %(o)s (set by the trigger rule)") % {"o": state})
    else:
        lines.append(
            _("Outcome: %(o)s — %(by)s")
            % {"o": verification_label(verification), "by": verification.verified_by}
        )
        rationale = _rationale(issue)
        if rationale:
            lines.append(_("Rationale: %(r)s") % {"r": export_text(rationale)})
        if verification.redline:
            lines.append(_("Suggested redline: %(r)s") % {"r": verification.redline})
        if verification.question:
            lines.append(_("Question for the counterparty: %(q)s") % {"q": verification.question})
    lines.append(_("Lawyer decision: %(d)s") % {"d": lawyer_label(issue.lawyer)})
    return [xml_safe(line) for line in lines]


def _rationale(issue: Issue) -> str:
    """The category's rationale, except that our own sentences for the category the verifier
    answered (the offline engine's match, a reason the outcome's label already says) are given
    as the page gives them; another category's keeps its own (its question)."""
    verification = issue.verification
    if verification is None or issue.rationale != verification.rationale:
        return issue.rationale
    kind = rationale_kind(
        model=verification.model,
        outcome=verification.outcome,
        reason=verification.reason,
        rationale=verification.rationale,
    )
    if kind == "match" and verification.quote:  # the page quotes the matched words beside it
        return f"{rationale_shown(verification)} “{export_text(verification.quote)}”"
    return issue.rationale if kind == "text" else rationale_shown(verification)


def _passage_label(passage: PassagePart) -> str:
    return f"#{passage.index}" + (f" ({passage.number})" if passage.number else "")


def _passage_title(passage: PassagePart) -> str:
    parts = [_("Passage %(n)s") % {"n": _passage_label(passage)}]
    if passage.heading:
        parts.append(passage.heading)
    parts.append(_("page %(p)d") % {"p": passage.page})
    parts.append(state_label(passage.state))
    return " · ".join(parts)


def _status_label(status: str) -> str:
    try:
        return str(ReviewStatus(status).label)
    except ValueError:
        return status


def _table(document: DocumentObject, headers: list[str], rows: list[Any]) -> None:
    table = document.add_table(rows=1, cols=len(headers))
    table.style = "Table Grid"
    for cell, header in zip(table.rows[0].cells, headers, strict=True):
        cell.paragraphs[0].add_run(header).bold = True
    for row in rows:
        cells = table.add_row().cells
        for cell, value in zip(cells, row, strict=True):
            cell.text = xml_safe(UNSET if value in (None, "") else value)
