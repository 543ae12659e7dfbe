"""Page numbers and running headers and footers leave the text of PDF pages (issue 25: a clause
over a page break read "know-how, 2 show-how")."""

from __future__ import annotations

from reviewapp.text.extraction import ExtractionLimits, extract_file
from reviewapp.text.extraction.furniture import strip_page_furniture
from tests.text.hostile_files import make_text_pdf

FOOTER = "Source: ACME CORP., 10-K, 3/1/2019"


def pages_of(bodies: list[str], *, number=lambda n: str(n), header: str | None = None):
    pages = []
    for n, body in enumerate(bodies, start=1):
        top = [header] if header and n > 1 else []
        pages.append("\n".join([*top, body, number(n), FOOTER]))
    return pages


def test_a_clause_over_a_page_break_reads_without_the_page_number():
    bodies = [
        "1. Licence. The Licensor grants the know-how,",
        "show-how and patents for the Field.",
        "2. Term. This Agreement lasts five years.",
    ]
    text = "\n\n".join(strip_page_furniture(pages_of(bodies)))
    assert "know-how,\n\nshow-how" in text
    assert FOOTER not in text
    assert "\n2\n" not in text and "\n3\n" not in text


def test_every_kind_of_page_number_goes():
    bodies = ["Clause one text.", "Clause two text.", "Clause three text.", "Clause four."]
    for number in (
        lambda n: f"Page {n} of 4",
        lambda n: f"- {n} -",
        lambda n: f"{n}/4",
        lambda n: f"第{n}页",
        lambda n: f"第 {n} 页 共 4 页",
        lambda n: str(n + 10),  # numbering that starts elsewhere still counts the pages
    ):
        text = "\n".join(strip_page_furniture(pages_of(bodies, number=number)))
        assert text.split("\n") == bodies, number(1)


def test_the_first_page_keeps_its_title_and_the_others_lose_the_running_header():
    bodies = ["Exhibit 10.1\nSUPPLY AGREEMENT", "More terms.", "Further terms.", "Last terms."]
    pages = pages_of(bodies, header="CONFIDENTIAL  Exhibit 10.1")
    kept = strip_page_furniture(pages)
    assert kept[0].startswith("Exhibit 10.1\nSUPPLY AGREEMENT")
    assert all(page.split("\n")[0] == body for page, body in zip(kept[1:], bodies[1:], strict=True))


def test_numbers_and_lines_that_are_text_stay():
    pages = [
        "ARTICLE 1\nThe price is\n100",  # a number that does not count the pages
        "(a)\nthe Buyer pays.\n7",
        "(a)\nthe Seller delivers.\n250",
        "(a)\nthe Agent reports.\nEnd of terms.",
    ]
    assert strip_page_furniture(pages) == pages
    assert strip_page_furniture(["Only page\n1"]) == ["Only page\n1"]


def test_a_pdf_upload_loses_its_footers(tmp_path):
    lines = [
        ["1. Licence. The Licensor grants the know-how,", "Page 1 of 3", FOOTER],
        ["show-how and patents for the Field.", "Page 2 of 3", FOOTER],
        ["2. Term. This Agreement lasts five years.", "Page 3 of 3", FOOTER],
    ]
    pdf = make_text_pdf(tmp_path, lines, name="footers.pdf")
    document = extract_file(pdf, limits=ExtractionLimits())
    assert "Page 2 of 3" not in document.text and "Source:" not in document.text
    assert "know-how," in document.text and "show-how and patents" in document.text
    assert len(document.page_spans) == 3


def test_furniture_beyond_a_stray_line_at_the_edge_goes():
    """The reader puts a page number above the page's last line, or a superscript below it."""
    pages = [
        "The Agent shall act on the 20\n1\nth",
        "Clause two begins\n2\nand ends here.",
        "Clause three.\n- 7 -\nof the Original Agreement continues.",
        "Clause four.\n4\nrd",
    ]
    assert strip_page_furniture(pages) == [
        "The Agent shall act on the 20\nth",
        "Clause two begins\nand ends here.",
        "Clause three.\nof the Original Agreement continues.",
        "Clause four.\nrd",
    ]


def test_a_lone_page_number_goes_even_on_the_title_page():
    pages = ["1\nEXHIBIT 10.5\nLICENCE AGREEMENT", "Terms.", "More terms.", "End of terms."]
    assert strip_page_furniture(pages)[0] == "EXHIBIT 10.5\nLICENCE AGREEMENT"
    assert strip_page_furniture(["Terms.", "More terms.\n2", "End."])[1] == "More terms."


def test_a_long_confidentiality_legend_is_a_running_line():
    legend = (
        "[* * *] = Certain confidential information contained in this document, marked by "
        "brackets, has been omitted and filed separately with the Securities and"
    )
    bodies = ["Licence terms.", "Supply terms.", "Payment terms.", "Closing terms."]
    assert strip_page_furniture([f"{body}\n{legend}" for body in bodies]) == bodies


def test_contents_pages_lose_their_own_numbers_before_a_body_numbered_from_one():
    pages = ["Cover", "Contents A\n2", "Contents B\n3", "Recitals\n1", "Terms\n2", "Close\n3"]
    assert strip_page_furniture(pages) == [
        "Cover",
        "Contents A",
        "Contents B",
        "Recitals",
        "Terms",
        "Close",
    ]
