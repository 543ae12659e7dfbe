"""Tracked changes and comments in the counterparty's own Word file (reviewapp.text.wordml)."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime

import pytest

from reviewapp.text.wordml import (
    Change,
    Note,
    TextMismatch,
    docx_from_text,
    docx_text,
    docx_tracked,
)
from tests.reviews.docx_files import (
    W,
    accepted_text,
    body,
    comment_anchors,
    contract_docx,
    libreoffice_view,
    part,
    rejected_text,
    revisions,
)

WHEN = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
ORIGINAL = contract_docx()
TEXT = docx_text(ORIGINAL)


def span(words: str, text: str = TEXT) -> tuple[int, int]:
    start = text.index(words)
    return start, start + len(words)


def change(words: str, replacement: str, author: str = "Lee Lawyer") -> Change:
    return Change(*span(words), replacement=replacement, author=author, date=WHEN)


def apply(text: str, changes: list[Change]) -> str:
    for c in sorted(changes, key=lambda c: -c.start):
        text = text[: c.start] + c.replacement + text[c.end :]
    return text


CHANGES = [
    change("unlimited for all claims", "capped at the fees paid in the last 12 months for claims"),
    change("12 months", "24 months"),
    change("Schedule 1", "Schedule 2"),
    change("百分之三十", "百分之十", author="王律师"),
    change("within five", "within ten"),
]


def test_the_text_map_reads_what_ingestion_read():
    assert TEXT.startswith("Master Services Agreement\nServices\nSupplier shall provide")
    assert "Liability.\tSupplier's liability is unlimited for all claims" in TEXT
    assert "Fee\tUSD 100 per hour\nTerm\t12 months" in TEXT
    assert "Notices go to legal@example.com within five days." in TEXT


def test_each_accepted_change_is_one_deletion_and_one_insertion_by_its_author():
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=CHANGES, notes=[])
    assert result.placed == len(CHANGES) and not result.unplaced
    found = revisions(result.content)
    liability = [r for r in found if "unlimited" in r[2] or "capped" in r[2]]
    assert liability == [
        ("del", "Lee Lawyer", "unlimited for all claims"),
        ("ins", "Lee Lawyer", "capped at the fees paid in the last 12 months for claims"),
    ]
    assert ("del", "王律师", "百分之三十") in found and ("ins", "王律师", "百分之十") in found
    dates = {e.get(f"{W}date") for e in body(result.content).iter(f"{W}del", f"{W}ins")}
    assert dates == {"2026-12-01T09:30:00Z"}


def test_accepting_every_change_gives_the_intended_text():
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=CHANGES, notes=[])
    assert accepted_text(result.content) == apply(TEXT, CHANGES)


def test_a_clause_split_across_formatted_runs_keeps_each_runs_formatting():
    words = "Supplier's liability is unlimited for all claims"
    result = docx_tracked(
        content=ORIGINAL, text=TEXT, changes=[change(words, "Liability is capped.")], notes=[]
    )
    (deletion,) = body(result.content).iter(f"{W}del")
    runs = deletion.findall(f"{W}r")
    assert ["".join(r.itertext()) for r in runs] == [
        "Supplier's liability is ",
        "unlimited",
        " for all claims",
    ]
    assert runs[0].find(f"{W}rPr/{W}b") is not None
    assert runs[1].find(f"{W}rPr/{W}i") is not None
    assert runs[2].find(f"{W}rPr/{W}u") is not None
    # The rest of the underlined run stays outside the change, still underlined.
    after = deletion.getnext().getnext()
    assert "".join(after.itertext()) == " arising under this Agreement."
    assert after.find(f"{W}rPr/{W}u") is not None


def test_styles_numbering_headers_and_footers_are_unchanged():
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=CHANGES, notes=[])
    for name in ("word/styles.xml", "word/numbering.xml", "word/header1.xml", "word/footer1.xml"):
        assert part(result.content, name) == part(ORIGINAL, name), name
    root = body(result.content)
    assert len(root.findall(f".//{W}tbl")) == 1
    numbered = root.xpath("//w:p[w:pPr/w:pStyle/@w:val='ListNumber']", namespaces={"w": W[1:-1]})
    assert len(numbered) == 2


def test_a_change_over_two_paragraphs_deletes_the_paragraph_mark_between():
    words = "Governing law"
    start = TEXT.index("逾期付款")
    end = TEXT.index(words) + len(words)
    joined = Change(start, end, "适用法律", "Lee Lawyer", WHEN)
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=[joined], notes=[])
    assert result.placed == 1
    marks = body(result.content).findall(f".//{W}pPr/{W}rPr/{W}del")
    assert len(marks) == 1
    assert accepted_text(result.content) == apply(TEXT, [joined])


def test_a_change_from_one_table_cell_into_another_is_returned_unplaced():
    start, end = TEXT.index("per hour"), TEXT.index("Term") + 4
    across = Change(start, end, "x", "Lee Lawyer", WHEN)
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=[across, CHANGES[0]], notes=[])
    assert result.unplaced == [across] and result.placed == 1
    assert accepted_text(result.content) == apply(TEXT, [CHANGES[0]])


def test_overlapping_changes_place_the_first_only():
    second = change("liability is unlimited", "liability is limited")
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=[CHANGES[0], second], notes=[])
    assert result.unplaced == [CHANGES[0]] and result.placed == 1


def test_a_pure_insertion_and_a_pure_deletion():
    at = TEXT.index(" for all claims")
    insertion = Change(at, at, ", to the extent permitted by law,", "Lee Lawyer", WHEN)
    deletion = change(" within five days", "")
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=[insertion, deletion], notes=[])
    assert [kind for kind, _a, _t in revisions(result.content)] == ["ins", "del"]
    assert accepted_text(result.content) == apply(TEXT, [insertion, deletion])


def test_comments_sit_on_their_words():
    notes = [
        Note(*span("违约金"), ("违约金 (high)",)),
        Note(*span("USD 100 per hour"), ("Pricing (medium)",)),
        Note(*span("Supplier shall provide"), ("Services (low)",)),
    ]
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=CHANGES, notes=notes)
    assert comment_anchors(result.content) == {
        "违约金 (high)": "违约金",
        "Pricing (medium)": "USD 100 per hour",
        "Services (low)": "Supplier shall provide",
    }
    assert len(body(result.content).findall(f".//{W}commentReference")) == 3


def test_a_comment_on_changed_words_runs_on_over_the_new_words():
    notes = [Note(*span("liability is unlimited"), ("Limitation of liability (high)",))]
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=CHANGES, notes=notes)
    # From its first word through the end of the change: the deleted words and the new ones.
    assert comment_anchors(result.content) == {
        "Limitation of liability (high)": "liability is unlimited for all claims"
    }
    root = body(result.content)
    end = root.find(f".//{W}commentRangeEnd")
    assert end.getprevious().tag == f"{W}ins"
    (reference,) = root.findall(f".//{W}commentReference")
    assert reference.getparent().getparent().tag == f"{W}p"
    assert revisions(result.content)[2:4] == [
        ("del", "Lee Lawyer", "unlimited for all claims"),
        ("ins", "Lee Lawyer", "capped at the fees paid in the last 12 months for claims"),
    ]


def test_a_change_inside_a_hyperlink_stays_inside_it_and_one_across_its_end_is_two_pieces():
    inside = change("legal@example", "counsel@example")
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=[inside], notes=[])
    (link,) = body(result.content).iter(f"{W}hyperlink")
    assert [e.tag for e in link] == [f"{W}del", f"{W}ins", f"{W}r"]
    across = change("example.com within", "example.org within")
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=[across], notes=[])
    # A w:del cannot hold a hyperlink: the deletion is cut in two at the link's end, like Word.
    assert [kind for kind, _a, _t in revisions(result.content)] == ["del", "del", "ins"]
    assert accepted_text(result.content) == apply(TEXT, [across])


def test_a_file_that_is_not_the_contracts_text_is_refused():
    with pytest.raises(TextMismatch):
        docx_tracked(content=ORIGINAL, text=TEXT + "x", changes=[], notes=[])


def test_a_generated_document_reads_back_as_the_text_with_its_changes():
    text = "1. Fees.\tCustomer pays USD 100.\n\n2. 违约金为百分之三十。\f\n3. Term: one year."
    generated = docx_from_text(text, page_starts=[0, text.index("3.")])
    safe = text.replace("\f", " ")
    assert docx_text(generated) == safe
    changes = [
        Change(*span("USD 100", safe), "USD 80", "Lee", WHEN),
        Change(*span("百分之三十", safe), "百分之十", "Lee", WHEN),
    ]
    result = docx_tracked(content=generated, text=safe, changes=changes, notes=[])
    assert accepted_text(result.content) == apply(safe, changes)


def test_libreoffice_reads_one_change_per_redline_and_the_intended_text():
    notes = [Note(*span("unlimited"), ("Limitation of liability",)), Note(*span("Fee"), ("Fees",))]
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=CHANGES, notes=notes)
    paragraphs, changes = libreoffice_view(result.content)
    # LibreOffice keeps a replacement as a deletion region and an insertion region.
    assert sorted(changes) == sorted(
        [("deletion", c.author) for c in CHANGES] + [("insertion", c.author) for c in CHANGES]
    )
    expected = [p for p in apply(TEXT, CHANGES).replace("\t", "\n").split("\n") if p.strip()]
    got = [p for p in "\n".join(paragraphs).replace("\t", "\n").split("\n") if p.strip()]
    assert got == expected


def test_rejecting_every_change_gives_back_the_original_text():
    joined = Change(
        TEXT.index("逾期付款"), TEXT.index("Governing law") + 13, "适用法律", "Lee", WHEN
    )
    changes = [*CHANGES[:3], joined, change("within five", "within ten")]
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=changes, notes=[])
    assert result.placed == len(changes)
    assert rejected_text(result.content) == TEXT


def test_a_note_on_a_change_wraps_its_deletion_and_insertion():
    keyed = [
        Change(*span("unlimited"), "capped", "Lee Lawyer (Hart LLP)", WHEN, key=7),
        Change(*span("all claims"), "claims", "Lee Lawyer (Hart LLP)", WHEN, key=7),
        Change(*span("Schedule 1"), "Schedule 2", "Lee Lawyer (Hart LLP)", WHEN, key=8),
    ]
    note = Note(*span("unlimited"), ("We accept a cap.",), "Lee Lawyer (Hart LLP)", on_change=7)
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=keyed, notes=[note])
    root = body(result.content)
    (start,) = root.iter(f"{W}commentRangeStart")
    (end,) = root.iter(f"{W}commentRangeEnd")
    assert start.getnext().tag == f"{W}del" and end.getprevious().tag == f"{W}ins"
    # From the first edit of the redline through its last, the words between included.
    assert comment_anchors(result.content) == {"We accept a cap.": "unlimited for all claims"}
    assert end.getnext().find(f"{W}commentReference") is not None


def test_a_note_on_a_change_that_could_not_be_placed_sits_on_its_words():
    note = Note(*span("Schedule 1"), ("Please confirm.",), on_change=99)
    result = docx_tracked(content=ORIGINAL, text=TEXT, changes=[], notes=[note])
    assert comment_anchors(result.content) == {"Please confirm.": "Schedule 1"}


def _as_word_writes_it(content: bytes) -> bytes:
    """`content` with its XML parts as Word writes them: a CRLF after the XML declaration,
    which python-docx would not write back."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(content)) as source, zipfile.ZipFile(out, "w") as package:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename.endswith(".xml") and data.startswith(b"<?xml"):
                head, _newline, rest = data.partition(b"\n")
                data = head.rstrip(b"\r") + b"\r\n" + rest
            package.writestr(info, data)
    return out.getvalue()


def test_parts_that_changes_do_not_touch_keep_the_original_bytes():
    original = _as_word_writes_it(ORIGINAL)
    notes = [Note(*span("Fee"), ("Fees",))]
    result = docx_tracked(content=original, text=TEXT, changes=CHANGES, notes=notes)
    names = ("word/styles.xml", "word/numbering.xml", "word/header1.xml", "word/footer1.xml")
    for name in (*names, "word/settings.xml", "word/theme/theme1.xml", "docProps/core.xml"):
        assert part(result.content, name) == part(original, name), name
    assert accepted_text(result.content) == apply(TEXT, CHANGES)
