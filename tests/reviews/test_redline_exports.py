"""The two exports of a redlined Word contract: for the counterparty (tracked changes cut to the
word, by the lawyer and the firm, and only the comments written for the other side, each on its
change) and for the firm (the same with every issue as a comment)."""

from __future__ import annotations

import difflib
import io
import re

import docx
import pytest

from reviewapp.accounts.models import Membership, Role
from reviewapp.audit.models import AuditEvent
from tests.factories import active_playbook
from tests.reviews.docx_files import (
    W,
    accepted_text,
    body,
    comment_anchors,
    comment_authors,
    comment_texts,
    part,
    rejected_text,
)
from tests.reviews.test_redlines import docx_contract, scanned

pytestmark = pytest.mark.django_db

PLAYBOOK = """
name: licence
version: "1"
language: en
rules:
  - id: en.t.renewal
    category: Renewal Term
    severity: medium
    action: verify
    patterns: ['sole discretion']
    question: Does the Licensee keep a right to renew?
  - id: en.t.uncapped
    category: Uncapped Liability
    severity: high
    action: verify
    patterns: ['unlimited']
"""
FIRM = "Hart & Co LLP"
AUTHOR = "Lee Lawyer (Hart & Co LLP)"
COMMENT = "We propose six-month renewals.\nConsent should not be unreasonably withheld."
EDITS = {
    "one year": "six (6) months",
    "may grant in its sole discretion": "shall not unreasonably withhold",
}
LIABILITY = {"unlimited for all claims": "capped at the fees paid in the twelve months"}
UNCHANGED_BETWEEN = " at a time, which the Licensor "
PARTS = ("word/styles.xml", "word/numbering.xml", "word/header1.xml", "word/footer1.xml")


def counterparty_word_file() -> bytes:
    """The other side's contract: bold headings, italics, a numbered list, a table, a header
    and a footer."""
    document = docx.Document()
    section = document.sections[0]
    section.header.paragraphs[0].text = "Software Licence Agreement: confidential"
    section.footer.paragraphs[0].text = "Globex Ltd / Initech Inc"
    document.add_paragraph().add_run("1. Licence").bold = True
    document.add_paragraph(
        "1.1 Grant. The Licensor grants the Licensee a licence to use the Software.",
        style="List Number",
    )
    document.add_paragraph().add_run("2. Term").bold = True
    clause = document.add_paragraph("2.1 Renewal. The Licensee may renew this Agreement for ")
    clause.add_run("one year").italic = True
    clause.add_run(
        UNCHANGED_BETWEEN + "may grant in its sole discretion, on written notice."
    ).bold = False
    table = document.add_table(rows=2, cols=2)
    table.style = "Table Grid"
    for (row, col), value in {
        (0, 0): "Fee",
        (0, 1): "USD 100 per hour",
        (1, 0): "Support",
        (1, 1): "Business days",
    }.items():
        table.cell(row, col).text = value
    document.add_paragraph().add_run("3. Liability").bold = True
    document.add_paragraph("3.1 Cap. The Licensor's liability is unlimited for all claims.")
    document.add_paragraph("4. Governing law. England and Wales.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


@pytest.fixture
def lawyer(make_user, matter):
    lee = make_user("lee", first_name="Lee", last_name="Lawyer")
    Membership.objects.create(user=lee, matter=matter, role=Role.LAWYER)
    return lee


@pytest.fixture
def redlined(client, matter, lawyer, settings, django_capture_on_commit_callbacks):
    """Two accepted redlines on the Word contract, one with a comment for the counterparty."""
    settings.CLAUSEWISE_FIRM_NAME = FIRM
    active_playbook(organisation=matter.organisation, source=PLAYBOOK, name="licence")
    original = counterparty_word_file()
    contract = docx_contract(matter, original, name="licence.docx")
    review = scanned(contract, django_capture_on_commit_callbacks)
    client.force_login(lawyer)
    for category, edits, comment in (
        ("Renewal Term", EDITS, COMMENT),
        ("Uncapped Liability", LIABILITY, None),
    ):
        (passage,) = [p for p in contract.passages.all() if p.firings.filter(category=category)]
        clause = contract.text[passage.start : passage.end]
        new = clause
        for before, after in edits.items():
            new = new.replace(before, after)
        data = {"passage": passage.pk, "category": category, "replacement": new}
        if comment:
            data["counterparty_comment"] = comment
        saved = client.post(
            f"/api/reviews/{review.pk}/redlines/", data, content_type="application/json"
        )
        assert saved.status_code == 200, saved.content
        assert client.post(f"/api/redlines/{saved.json()['id']}/accept/").status_code == 200
    return review, original


def download(client, review, fmt: str) -> bytes:
    response = client.get(f"/reviews/{review.pk}/export.{fmt}")
    assert response.status_code == 200
    return b"".join(response)


def revision_elements(content: bytes) -> list:
    return [e for e in body(content).iter(f"{W}del", f"{W}ins") if e.getparent().tag != f"{W}rPr"]


def intended(text: str) -> str:
    for before, after in {**EDITS, **LIABILITY}.items():
        text = text.replace(before, after)
    return text


def test_the_counterparty_file_has_the_changes_by_the_lawyer_and_the_firm_and_only_their_comment(
    client, redlined
):
    review, original = redlined
    content = download(client, review, "redline.docx")
    text = review.contract.text
    revisions = revision_elements(content)
    assert revisions and {e.get(f"{W}author") for e in revisions} == {AUTHOR}
    assert all(
        re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", e.get(f"{W}date")) for e in revisions
    )
    assert comment_texts(content) == [COMMENT]
    assert comment_authors(content) == {AUTHOR}
    package = part(content, "word/document.xml") + part(content, "word/comments.xml")
    for internal in (b"Question", b"Renewal Term", b"Uncapped Liability", b"NEEDS_HUMAN_REVIEW"):
        assert internal not in package
    assert accepted_text(content) == intended(text)
    assert rejected_text(content) == text
    for name in PARTS:
        assert part(content, name) == part(original, name), name


def test_the_counterpartys_comment_wraps_its_own_change(client, redlined):
    review, _original = redlined
    content = download(client, review, "redline.docx")
    root = body(content)
    (start,) = root.iter(f"{W}commentRangeStart")
    (end,) = root.iter(f"{W}commentRangeEnd")
    first, last = start.getnext(), end.getprevious()
    assert first.tag == f"{W}del" and "".join(first.itertext()) == "one year"
    assert last.tag == f"{W}ins" and "".join(last.itertext()) == "shall not unreasonably withhold"
    # Its range holds the whole clause's change: both edits and the words kept between them.
    assert comment_anchors(content) == {
        COMMENT.replace("\n", ""): "one year"
        + UNCHANGED_BETWEEN
        + "may grant in its sole discretion"
    }


def test_the_firms_file_has_the_same_changes_and_every_issue_as_a_comment(client, redlined):
    review, original = redlined
    counterparty = download(client, review, "redline.docx")
    content = download(client, review, "redline-internal.docx")
    assert [
        (e.tag, e.get(f"{W}author"), "".join(e.itertext())) for e in revision_elements(content)
    ] == [
        (e.tag, e.get(f"{W}author"), "".join(e.itertext())) for e in revision_elements(counterparty)
    ]
    comments = comment_texts(content)
    assert COMMENT in comments
    issues = [c for c in comments if c != COMMENT]
    assert {c.split("\n")[0] for c in issues} == {
        "Renewal Term (medium)",
        "Uncapped Liability (high)",
    }
    assert any("Question: Does the Licensee keep a right to renew?" in c for c in issues)
    assert all(f"Redline accepted by {AUTHOR}." in c for c in issues)
    assert rejected_text(content) == review.contract.text
    assert accepted_text(content) == intended(review.contract.text)
    for name in PARTS:
        assert part(content, name) == part(original, name), name


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def test_changes_are_cut_to_the_words_that_differ(client, redlined):
    review, _original = redlined
    content = download(client, review, "redline.docx")
    deleted = sum(
        len(_words("".join(e.itertext()))) for e in revision_elements(content) if e.tag == f"{W}del"
    )
    text = review.contract.text
    old, new = _words(text), _words(intended(text))
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    reference = sum(a1 - a0 for op, a0, a1, _b0, _b1 in matcher.get_opcodes() if op != "equal")
    assert 0 < deleted <= 1.5 * reference, (deleted, reference)
    # The words between the clause's two edits stay plain text, in their own run.
    plain = [
        "".join(r.itertext())
        for r in body(content).iter(f"{W}r")
        if r.getparent().tag not in (f"{W}del", f"{W}ins")
    ]
    assert UNCHANGED_BETWEEN in plain
    # The italic words deleted keep their italics, and so do the words typed in their place.
    (italic,) = [e for e in revision_elements(content) if "".join(e.itertext()) == "one year"]
    assert italic.find(f"{W}r/{W}rPr/{W}i") is not None
    assert italic.getnext().tag == f"{W}ins"
    assert italic.getnext().find(f"{W}r/{W}rPr/{W}i") is not None


def test_each_download_is_audited_with_the_kind_of_file(client, redlined):
    review, _original = redlined
    download(client, review, "redline.docx")
    download(client, review, "redline-internal.docx")
    events = AuditEvent.objects.filter(action="export.created", target_id=str(review.pk))
    assert sorted((e.data["format"], e.data["audience"]) for e in events) == [
        ("redline-internal.docx", "firm"),
        ("redline.docx", "counterparty"),
    ]


def test_the_audit_log_says_which_kind_was_exported(client, redlined):
    from django.utils import translation

    from reviewapp.audit.pages.wording import EventLookups, detail_words

    review, _original = redlined
    download(client, review, "redline.docx")
    event = AuditEvent.objects.get(action="export.created", target_id=str(review.pk))
    assert detail_words(event, EventLookups()) == (
        "REDLINE.DOCX (for the counterparty, no internal notes)"
    )
    with translation.override("zh-hans"):
        assert detail_words(event, EventLookups()) == "REDLINE.DOCX (发给对方，不含内部批注)"


def test_without_a_firm_setting_the_organisations_name_is_the_firm(client, redlined, settings):
    review, _original = redlined
    settings.CLAUSEWISE_FIRM_NAME = ""
    content = download(client, review, "redline.docx")
    organisation = review.contract.matter.organisation.name
    assert {e.get(f"{W}author") for e in revision_elements(content)} == {
        f"Lee Lawyer ({organisation})"
    }


def test_the_page_says_which_file_is_which_in_english_and_chinese(client, redlined, reviewer):
    review, _original = redlined
    url = f"/contracts/{review.contract_id}/redlines/"
    english = client.get(url).content.decode()
    assert "Redline for the counterparty (no internal notes)" in english
    assert "Redline for the firm (with internal notes)" in english
    assert f"/reviews/{review.pk}/export.redline.docx" in english
    assert f"/reviews/{review.pk}/export.redline-internal.docx" in english
    # The lawyer's comment for the counterparty is in the redline's form, to edit.
    assert 'name="counterparty_comment"' in english and "six-month renewals" in english
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    client.force_login(reviewer)
    read_only = client.get(url).content.decode()
    assert 'name="counterparty_comment"' not in read_only
    assert "Comment for the counterparty:" in read_only and "six-month renewals" in read_only
    assert "发给对方的修订稿（不含内部批注）" in chinese
    assert "律所内部修订稿（含内部批注）" in chinese
    assert "给对方的批注" in chinese
