"""Word files made for the tracked-changes tests, and ways to read a tracked file back:
the XML with every change accepted, each comment's anchored words, and LibreOffice's view."""

from __future__ import annotations

import io
import subprocess
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import docx
from docx.enum.text import WD_UNDERLINE
from docx.oxml.ns import qn
from docx.oxml.parser import OxmlElement
from lxml import etree

from reviewapp.text.wordml import docx_text
from tests.tools import need_program

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
TEXT_NS = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
OFFICE_NS = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
DC_NS = "http://purl.org/dc/elements/1.1/"


def contract_docx(*, chinese: bool = True) -> bytes:
    """Headers, footers, a numbered list, a table, a clause in three differently formatted
    runs, a tab, a hyperlink, and a Chinese clause (which makes the contract read as Chinese)."""
    document = docx.Document()
    section = document.sections[0]
    section.header.paragraphs[0].text = "CONFIDENTIAL — Master Services Agreement"
    section.footer.paragraphs[0].text = "Page footer: Acme / Globex"
    document.add_paragraph("Master Services Agreement", style="Title")
    document.add_paragraph("Services", style="List Number")
    document.add_paragraph(
        "Supplier shall provide the services in Schedule 1.", style="List Number"
    )
    clause = document.add_paragraph("Liability.\t")
    clause.add_run("Supplier's liability is ").bold = True
    clause.add_run("unlimited").italic = True
    tail = clause.add_run(" for all claims arising under this Agreement.")
    tail.underline = WD_UNDERLINE.SINGLE
    table = document.add_table(rows=2, cols=2)
    table.style = "Table Grid"
    for (row, col), value in {
        (0, 0): "Fee",
        (0, 1): "USD 100 per hour",
        (1, 0): "Term",
        (1, 1): "12 months",
    }.items():
        table.cell(row, col).text = value
    link = document.add_paragraph("Notices go to ")
    _hyperlink(link, "legal@example.com", "mailto:legal@example.com")
    link.add_run(" within five days.")
    if chinese:
        document.add_paragraph(
            "第八条 违约金为合同总额的百分之三十，逾期付款按日万分之五计收滞纳金。"
        )  # noqa: E501
    document.add_paragraph("Governing law: England and Wales.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _hyperlink(paragraph, text: str, url: str) -> None:
    r_id = paragraph.part.relate_to(
        url,
        "http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink",
        is_external=True,
    )
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), r_id)
    run = OxmlElement("w:r")
    node = OxmlElement("w:t")
    node.text = text
    run.append(node)
    link.append(run)
    paragraph._p.append(link)


def long_docx(*, pages: int = 60, clauses_per_page: int = 12) -> bytes:
    """About `pages` pages of numbered clauses, each in two runs of different formatting."""
    document = docx.Document()
    document.sections[0].header.paragraphs[0].text = "Long agreement"
    for page in range(pages):
        document.add_heading(f"Part {page + 1}", level=1)
        for n in range(clauses_per_page):
            paragraph = document.add_paragraph(style="List Number")
            paragraph.add_run(f"Clause {page + 1}.{n + 1}. ").bold = True
            paragraph.add_run(
                "The Supplier shall indemnify the Customer against all losses, damages and "
                f"costs arising from breach number {page * clauses_per_page + n}, without limit."
            )
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def body(content: bytes) -> etree._Element:
    return etree.fromstring(part(content, "word/document.xml"))


def part(content: bytes, name: str) -> bytes:
    with zipfile.ZipFile(io.BytesIO(content)) as package:
        return package.read(name)


def accepted_text(content: bytes) -> str:
    """The text of `content` with every tracked change accepted, read back from the XML."""

    def accept(root: etree._Element) -> None:
        for deletion in root.xpath(".//w:del[not(parent::w:rPr)]"):
            deletion.getparent().remove(deletion)
        for insertion in root.xpath(".//w:ins[not(parent::w:rPr)]"):
            _unwrap(insertion)
        for paragraph in root.xpath(".//w:p[w:pPr/w:rPr/w:del]"):
            following = paragraph.getnext()
            for child in list(following):
                if child.tag != qn("w:pPr"):
                    paragraph.append(child)
            following.getparent().remove(following)

    return _text_after(content, accept)


def rejected_text(content: bytes) -> str:
    """The text of `content` with every tracked change rejected: insertions removed, deletions
    (and deleted paragraph marks) unwrapped back into plain text."""

    def reject(root: etree._Element) -> None:
        for insertion in root.xpath(".//w:ins[not(parent::w:rPr)]"):
            insertion.getparent().remove(insertion)
        for deletion in root.xpath(".//w:del"):
            _unwrap(deletion)
        for node in root.xpath(".//w:delText"):
            node.tag = qn("w:t")

    return _text_after(content, reject)


def _text_after(content: bytes, change: Callable[[etree._Element], None]) -> str:
    """The text of `content` once `change` has edited its body in place."""
    document = docx.Document(io.BytesIO(content))
    change(document.element.body)
    out = io.BytesIO()
    document.save(out)
    return docx_text(out.getvalue())


def _unwrap(element: etree._Element) -> None:
    """Put `element`'s children in its place."""
    for child in list(element):
        element.addprevious(child)
    element.getparent().remove(element)


def comment_texts(content: bytes) -> list[str]:
    """The text of each comment, in order; none when the file has no comments part."""
    return ["\n".join("".join(p.itertext()) for p in c.iter(f"{W}p")) for c in _comments(content)]


def comment_authors(content: bytes) -> set[str]:
    return {c.get(f"{W}author") for c in _comments(content)}


def _comments(content: bytes) -> list[etree._Element]:
    """The comments of `content`; none when the file has no comments part."""
    with zipfile.ZipFile(io.BytesIO(content)) as package:
        if "word/comments.xml" not in package.namelist():
            return []
        return list(etree.fromstring(package.read("word/comments.xml")))


def comment_anchors(content: bytes) -> dict[str, str]:
    """Comment text -> the original words between its range markers (deleted words included,
    inserted ones left out)."""
    root = body(content)
    texts = {
        comment.get(f"{W}id"): "".join(comment.itertext()).strip()
        for comment in etree.fromstring(part(content, "word/comments.xml"))
    }
    open_ranges: dict[str, list[str]] = {}
    anchored: dict[str, str] = {}
    for element in root.iter():
        if element.tag == f"{W}commentRangeStart":
            open_ranges[element.get(f"{W}id")] = []
        elif element.tag == f"{W}commentRangeEnd":
            anchored[texts[element.get(f"{W}id")]] = "".join(open_ranges.pop(element.get(f"{W}id")))
        elif element.tag in (f"{W}t", f"{W}delText") and not _inserted(element):
            for words in open_ranges.values():
                words.append(element.text or "")
    return anchored


def _inserted(element: etree._Element) -> bool:
    return any(ancestor.tag == f"{W}ins" for ancestor in element.iterancestors())


def revisions(content: bytes) -> list[tuple[str, str, str]]:
    """(kind, author, text) of each w:del / w:ins in the body, in order."""
    found = []
    for element in body(content).iter(f"{W}del", f"{W}ins"):
        if element.getparent().tag == f"{W}rPr":
            continue
        text = "".join(n.text or "" for n in element.iter(f"{W}t", f"{W}delText"))
        found.append((element.tag[len(W) :], element.get(f"{W}author"), text))
    return found


def needs_soffice() -> str:
    return need_program("soffice", "libreoffice-writer-nogui")


def libreoffice_view(content: bytes) -> tuple[list[str], list[tuple[str, str]]]:
    """LibreOffice's reading of a DOCX: the paragraphs of its text with every change accepted
    (the body of the ODT it writes; deleted text lives apart, in tracked-changes), and
    (kind, author) of each change it found."""
    soffice = needs_soffice()
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "tracked.docx"
        source.write_bytes(content)
        subprocess.run(
            [
                soffice,
                f"-env:UserInstallation=file://{folder}/profile",
                "--headless",
                "--convert-to",
                "odt",
                "--outdir",
                folder,
                str(source),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        with zipfile.ZipFile(Path(folder) / "tracked.odt") as package:
            root = etree.fromstring(package.read("content.xml"))
    changes = [
        (region[0].tag.split("}")[1], region.findtext(f".//{{{DC_NS}}}creator"))
        for region in root.iter(f"{{{TEXT_NS}}}changed-region")
    ]
    for name in ("tracked-changes", "annotation"):
        for element in list(root.iter(f"{{{TEXT_NS}}}{name}", f"{{{OFFICE_NS}}}{name}")):
            _remove_keeping_tail(element)
    paragraphs = [_odt_text(p) for p in root.iter(f"{{{TEXT_NS}}}p", f"{{{TEXT_NS}}}h")]
    return [p for p in paragraphs if p.strip()], changes


def _remove_keeping_tail(element: etree._Element) -> None:
    parent, previous = element.getparent(), element.getprevious()
    if element.tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)


def _odt_text(element: etree._Element) -> str:
    parts = [element.text or ""]
    for child in element:
        name = child.tag.split("}")[1] if isinstance(child.tag, str) else ""
        if name == "tab":
            parts.append("\t")
        elif name == "s":
            parts.append(" " * int(child.get(f"{{{TEXT_NS}}}c", "1")))
        elif name == "line-break":
            parts.append("\n")
        else:
            parts.append(_odt_text(child))
        parts.append(child.tail or "")
    return "".join(parts)
