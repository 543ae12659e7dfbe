"""Tracked changes and comments written into the counterparty's own Word file.

Offsets are those of the text that ingestion read from the file (`text/extraction/word.py`:
body paragraphs and table rows joined by line breaks, cells by tabs, a paragraph being its direct
runs and hyperlinked runs). `_TextMap` walks the document the same way, and so knows for every
character the `w:t` (or `w:tab`, `w:br` ...) it came from. A change splits the runs at its two
ends (each half keeps its `w:rPr`), wraps the runs between into `w:del` (their `w:t` become
`w:delText`) and puts one `w:ins` after them; runs of different formatting therefore stay one
deletion. Everything else of the package (styles, numbering, headers, footers, tables, other
runs) is left as it was; python-docx opens and saves it and creates the comments part, and every
part it had no reason to change is copied back from the original byte for byte (python-docx
writes each XML part anew, which changes, for example, the line break after Word's XML
declaration). A note can sit on a change of its own (`Note.on_change`): its comment then
wraps that change's `w:del` and `w:ins`.

Hand-written, because none of the candidate libraries does this job (checked on real files):
docx-redline needs Python 3.12 (we run 3.11); python-redlines compares two whole documents with a
.NET binary (one author and date per comparison, word-level revisions, no comments), so it needs
the edited document this module would have to produce anyway; docx-revisions rebuilds the runs
it touches without their formatting, works inside one paragraph, and counts only `w:t` (tabs and
breaks shift its offsets).
"""

from __future__ import annotations

import copy
import io
import re
import zipfile
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import docx
from docx.document import Document as DocumentObject
from docx.oxml.ns import qn
from docx.oxml.parser import OxmlElement
from docx.table import Table, _Row
from docx.text.paragraph import Paragraph
from lxml import etree

CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
_CONTENT = "w:br | w:cr | w:noBreakHyphen | w:ptab | w:t | w:tab"
_TEXT_TAGS = (qn("w:t"), qn("w:delText"))
# Inside a deletion these may sit between the deleted runs; anything else (an earlier revision,
# a content control, a field) ends one w:del and the next run starts another.
_MOVABLE = {
    qn(tag)
    for tag in (
        "w:r",
        "w:bookmarkStart",
        "w:bookmarkEnd",
        "w:proofErr",
        "w:commentRangeStart",
        "w:commentRangeEnd",
        "w:permStart",
        "w:permEnd",
    )
}
_XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


class TextMismatch(ValueError):
    """The file's text is not the text the offsets refer to (another file, or another reader)."""


class Unplaceable(ValueError):
    """A change that cannot be one revision here, e.g. it runs from one table cell into another."""


@dataclass(frozen=True)
class Change:
    """Replace text[start:end] by `replacement` (start == end: insert; "" deletes)."""

    start: int
    end: int
    replacement: str
    author: str
    date: datetime
    key: object = None  # the caller's handle, returned for changes that could not be placed


@dataclass(frozen=True)
class Note:
    """A comment anchored on text[start:end]; `lines` are its paragraphs."""

    start: int
    end: int
    lines: tuple[str, ...]
    author: str = "Clausewise"
    initials: str = "CW"
    # The `key` of the changes this note is about: anchored on their revisions when placed.
    on_change: object = None


@dataclass
class Result:
    content: bytes
    placed: int = 0
    unplaced: list[Change] = field(default_factory=list)


def xml_safe(text: str) -> str:
    """Characters XML 1.0 cannot hold become spaces, so offsets stay the same."""
    return _XML_UNSAFE.sub(" ", text)


def docx_text(content: bytes) -> str:
    """The text of a DOCX as ingestion reads it, for checking a file against `Contract.text`."""
    return _TextMap(docx.Document(io.BytesIO(content))).text


def docx_tracked(
    *, content: bytes, text: str, changes: Sequence[Change], notes: Sequence[Note]
) -> Result:
    """`content` with every change as a tracked revision and every note as a comment.

    Raises `TextMismatch` when the file's text is not `text`. A change that cannot be placed
    (see `Unplaceable`) is left out and returned in `Result.unplaced`; the caller says so.
    Overlapping changes: the later one (in `changes` order) is unplaced.
    """
    document = docx.Document(io.BytesIO(content))
    text_map = _TextMap(document)
    if text_map.text != text:
        raise TextMismatch(_first_difference(text_map.text, text))
    writer = _Writer(document, text_map)
    result = Result(content=b"")
    taken: list[tuple[int, int]] = []
    for change in sorted(changes, key=lambda c: (c.start, c.end)):
        overlaps = any(change.start < end and start < change.end for start, end in taken)
        if overlaps or not 0 <= change.start <= change.end <= len(text):
            result.unplaced.append(change)
            continue
        try:
            writer.change(change)
        except Unplaceable:
            result.unplaced.append(change)
            continue
        taken.append((change.start, change.end))
        result.placed += 1
    for note in notes:
        writer.note(note)
    out = io.BytesIO()
    document.save(out)
    result.content = _untouched_parts_restored(out.getvalue(), original=content)
    return result


# What writing changes and comments touches; every other part keeps the original's bytes.
_WRITTEN_PARTS = {
    "[Content_Types].xml",
    "word/document.xml",
    "word/_rels/document.xml.rels",
    "word/comments.xml",
}


def _untouched_parts_restored(content: bytes, *, original: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(original)) as source:
        kept = {name: source.read(name) for name in source.namelist()}
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(content)) as saved,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package,
    ):
        for info in saved.infolist():
            name = info.filename
            data = kept[name] if name in kept and name not in _WRITTEN_PARTS else None
            package.writestr(info, data if data is not None else saved.read(name))
    return out.getvalue()


def docx_from_text(text: str, *, page_starts: Iterable[int] = ()) -> bytes:
    """A plain DOCX whose text (as `docx_text` reads it) is `text`, one paragraph per line.

    For PDF and text uploads, which have no Word file of their own. A page of the PDF starts on
    a new page of the document.
    """
    document = docx.Document()
    body = document.element.body
    for paragraph in list(body.iterchildren(qn("w:p"))):
        body.remove(paragraph)
    starts = set(page_starts) - {0}
    offset = 0
    for line in xml_safe(text).split("\n"):
        paragraph = document.add_paragraph()
        if any(offset <= start < offset + len(line) + 1 for start in starts):
            paragraph.paragraph_format.page_break_before = True
        if line:
            paragraph._p.append(_new_run(line, None))
        offset += len(line) + 1
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _first_difference(found: str, expected: str) -> str:
    at = next(
        (i for i, (a, b) in enumerate(zip(found, expected, strict=False)) if a != b),
        min(len(found), len(expected)),
    )
    return f"the file's text differs from the contract's at character {at}"


class _TextMap:
    """Every character of the document's text, mapped to the element it came from."""

    def __init__(self, document: DocumentObject) -> None:
        self.starts: list[int] = []
        self.nodes: list[etree._Element] = []
        self.lengths: list[int] = []
        # (start, end, w:p) of each mapped paragraph, in text order.
        self.paragraphs: list[tuple[int, int, etree._Element]] = []
        self._parts: list[str] = []
        self._pos = 0
        self._mapped_cells: set[etree._Element] = set()
        self._blocks(document.iter_inner_content(), mapping=True)
        self.text = "".join(self._parts)
        self.paragraph_starts = [start for start, _end, _p in self.paragraphs]

    def _emit(self, text: str, node: etree._Element | None) -> None:
        if not text:
            return
        if node is not None:
            self.starts.append(self._pos)
            self.nodes.append(node)
            self.lengths.append(len(text))
        self._parts.append(text)
        self._pos += len(text)

    def _blocks(self, content: Iterable[Paragraph | Table], *, mapping: bool) -> None:
        first = True
        for block in content:
            items: list[Paragraph | _Row] = (
                [block] if isinstance(block, Paragraph) else list(block.rows)
            )
            for item in items:
                if not first:
                    self._emit("\n", None)
                first = False
                if isinstance(item, Paragraph):
                    self._paragraph(item._p, mapping=mapping)
                else:
                    self._row(item, mapping=mapping)

    def _paragraph(self, p: etree._Element, *, mapping: bool) -> None:
        start = self._pos
        for child in p.xpath("w:r | w:hyperlink"):
            for run in [child] if child.tag == qn("w:r") else child.xpath("w:r"):
                for node in run.xpath(_CONTENT):
                    self._emit(str(node), node if mapping else None)
        if mapping:
            self.paragraphs.append((start, self._pos, p))

    def _row(self, row: _Row, *, mapping: bool) -> None:
        seen: list[etree._Element] = []
        for cell in row.cells:
            if any(cell._tc is element for element in seen):
                continue
            if seen:
                self._emit("\t", None)
            seen.append(cell._tc)
            # A vertically merged cell is read again in each row it spans: map it once.
            again = cell._tc in self._mapped_cells
            self._mapped_cells.add(cell._tc)
            self._blocks(cell.iter_inner_content(), mapping=mapping and not again)

    def first_at_or_after(self, offset: int) -> int:
        return bisect_left(self.starts, offset)

    def paragraphs_between(self, start: int, end: int) -> list[etree._Element]:
        """Paragraphs whose text or end touches [start, end]."""
        first = max(bisect_right(self.paragraph_starts, start) - 1, 0)
        found = []
        for p_start, p_end, p in self.paragraphs[first:]:
            if p_start > end:
                break
            if p_end >= start:
                found.append(p)
        return found

    def split_at(self, offset: int) -> None:
        """Make `offset` a run boundary: split the `w:t` it falls in, then its run."""
        i = bisect_right(self.starts, offset) - 1
        if i >= 0 and self.starts[i] < offset < self.starts[i] + self.lengths[i]:
            self._split_text(i, offset - self.starts[i])
            i += 1
        elif i < 0 or self.starts[i] != offset:
            i += 1
        if i < len(self.nodes):
            _split_run_before(self.nodes[i])

    def _split_text(self, i: int, at: int) -> None:
        node = self.nodes[i]
        if node.tag not in _TEXT_TAGS:
            raise Unplaceable("a one-character element cannot be split")
        tail = copy.deepcopy(node)
        text = node.text or ""
        node.text, tail.text = text[:at], text[at:]
        for part in (node, tail):
            part.set(qn("xml:space"), "preserve")
        node.addnext(tail)
        self.starts.insert(i + 1, self.starts[i] + at)
        self.nodes.insert(i + 1, tail)
        self.lengths.insert(i + 1, len(text) - at)
        self.lengths[i] = at


def _split_run_before(node: etree._Element) -> None:
    """Move `node` and what follows it in its run into a copy of the run (same `w:rPr`)."""
    run = node.getparent()
    content_before = False
    for child in run:
        if child is node:
            break
        content_before = content_before or child.tag != qn("w:rPr")
    if not content_before:
        return
    tail = OxmlElement("w:r")
    for name, value in run.attrib.items():
        tail.set(name, value)
    properties = run.find(qn("w:rPr"))
    if properties is not None:
        tail.append(copy.deepcopy(properties))
    for child in [node, *node.itersiblings()]:
        tail.append(child)
    run.addnext(tail)


class _Writer:
    def __init__(self, document: DocumentObject, text_map: _TextMap) -> None:
        self.document = document
        self.map = text_map
        body = document.element.body
        ids = [
            int(value)
            for value in body.xpath(".//w:ins/@w:id | .//w:del/@w:id | .//w:moveFrom/@w:id")
            if str(value).isdigit()
        ]
        self._next_id = max(ids, default=0) + 1
        self._insertion_of: dict[etree._Element, etree._Element | None] = {}
        # Change key -> its placed w:del and w:ins, in document order.
        self._revisions_of: dict[object, list[etree._Element]] = {}

    def _revision(self, tag: str, change: Change) -> etree._Element:
        element = OxmlElement(tag)
        element.set(qn("w:id"), str(self._next_id))
        element.set(qn("w:author"), xml_safe(change.author) or "Clausewise")
        element.set(qn("w:date"), change.date.strftime("%Y-%m-%dT%H:%M:%SZ"))
        self._next_id += 1
        return element

    # -- tracked changes -------------------------------------------------------------------

    def change(self, change: Change) -> None:
        paragraphs = self.map.paragraphs_between(change.start, change.end)
        if not paragraphs:
            raise Unplaceable("no paragraph at these offsets")
        _check_consecutive(paragraphs)
        self.map.split_at(change.start)
        self.map.split_at(change.end)
        first, last = self._node_range(change.start, change.end)
        runs = _unique_parents(self.map.nodes[first:last])
        deletions = self._delete(runs, change)
        for p in paragraphs[:-1]:
            _delete_paragraph_mark(p, self._revision("w:del", change))
        insertion = None
        if change.replacement:
            insertion = self._insert(change, runs, last, paragraphs[-1])
        for deletion in deletions:
            self._insertion_of[deletion] = insertion
        if change.key is not None:
            placed = [*deletions, *([insertion] if insertion is not None else [])]
            self._revisions_of.setdefault(change.key, []).extend(placed)

    def _node_range(self, start: int, end: int) -> tuple[int, int]:
        return self.map.first_at_or_after(start), self.map.first_at_or_after(end)

    def _delete(self, runs: list[etree._Element], change: Change) -> list[etree._Element]:
        deletions: list[etree._Element] = []
        for group in _sibling_groups(runs):
            deletion = self._revision("w:del", change)
            group[0].addprevious(deletion)
            for element in group:
                deletion.append(element)
                if element.tag == qn("w:r"):
                    _mark_deleted(element)
            deletions.append(deletion)
        return deletions

    def _insert(
        self, change: Change, runs: list[etree._Element], last: int, paragraph: etree._Element
    ) -> etree._Element:
        insertion = self._revision("w:ins", change)
        model = runs[0] if runs else self._run_near(last)
        insertion.append(_new_run(xml_safe(change.replacement), model))
        following = self.map.nodes[last].getparent() if last < len(self.map.nodes) else None
        if following is not None and _paragraph_of(following) is paragraph:
            following.addprevious(insertion)
        elif runs and _paragraph_of(runs[-1]) is paragraph:
            _top_deletion(runs[-1]).addnext(insertion)
        else:
            paragraph.append(insertion)
        return insertion

    def _run_near(self, index: int) -> etree._Element | None:
        for i in (index - 1, index):
            if 0 <= i < len(self.map.nodes):
                return self.map.nodes[i].getparent()
        return None

    # -- comments --------------------------------------------------------------------------

    def note(self, note: Note) -> None:
        revisions = self._revisions_of.get(note.on_change) if note.on_change is not None else None
        if revisions:
            comment_id = self._comment(note)
            revisions[0].addprevious(_marker("w:commentRangeStart", comment_id))
            end_marker = _marker("w:commentRangeEnd", comment_id)
            revisions[-1].addnext(end_marker)
            end_marker.addnext(_reference_run(comment_id))
            return
        start, end = note.start, max(note.end, note.start + 1)
        self.map.split_at(start)
        self.map.split_at(end)
        first, last = self._node_range(start, end)
        if first >= last:
            first, last = self._nearest_nodes(start)
        if first >= last:
            return
        comment_id = self._comment(note)
        self.map.nodes[first].getparent().addprevious(_marker("w:commentRangeStart", comment_id))
        end_marker = _marker("w:commentRangeEnd", comment_id)
        self._end_anchor(self.map.nodes[last - 1].getparent()).addnext(end_marker)
        _top_deletion(end_marker).addnext(_reference_run(comment_id))

    def _comment(self, note: Note) -> str:
        comment = self.document.comments.add_comment(
            text=xml_safe(note.lines[0]) if note.lines else "",
            author=xml_safe(note.author),
            initials=xml_safe(note.initials),
        )
        for line in note.lines[1:]:
            comment.add_paragraph(xml_safe(line))
        return str(comment.comment_id)

    def _end_anchor(self, run: etree._Element) -> etree._Element:
        """Where a comment on `run` ends: after the run, or, when the run is deleted by one of
        our changes, after that change's insertion. The comment then covers the words put in
        place of its own, and the change stays one revision (Word and LibreOffice cut a
        deletion in two where a comment ends inside it)."""
        deletion = run.getparent()
        if deletion in self._insertion_of:
            insertion = self._insertion_of[deletion]
            return insertion if insertion is not None else deletion
        return run

    def _nearest_nodes(self, offset: int) -> tuple[int, int]:
        i = min(self.map.first_at_or_after(offset), len(self.map.nodes) - 1)
        return (i, i + 1) if i >= 0 else (0, 0)


def _check_consecutive(paragraphs: list[etree._Element]) -> None:
    parent = paragraphs[0].getparent()
    for before, after in zip(paragraphs, paragraphs[1:], strict=False):
        if after.getparent() is not parent or before.getnext() is not after:
            raise Unplaceable("the change runs across a table cell or a table")


def _unique_parents(nodes: list[etree._Element]) -> list[etree._Element]:
    runs: list[etree._Element] = []
    for node in nodes:
        run = node.getparent()
        if not runs or runs[-1] is not run:
            runs.append(run)
    return runs


def _sibling_groups(runs: list[etree._Element]) -> list[list[etree._Element]]:
    """Runs to delete, as lists of adjacent siblings (with the markers between them) that one
    `w:del` may hold: a hyperlink or an earlier revision between two runs splits them."""
    groups: list[list[etree._Element]] = []
    for run in runs:
        between = _path_to(groups[-1][-1], run) if groups else None
        if between is None:
            groups.append([run])
        else:
            groups[-1].extend(between)
    return groups


def _path_to(element: etree._Element, target: etree._Element) -> list[etree._Element] | None:
    """The siblings after `element` up to `target`, if only movable ones lie between."""
    between: list[etree._Element] = []
    for sibling in element.itersiblings():
        if sibling.tag not in _MOVABLE:
            return None
        between.append(sibling)
        if sibling is target:
            return between
    return None


def _mark_deleted(run: etree._Element) -> None:
    for node in run.iter(qn("w:t"), qn("w:instrText")):
        node.tag = qn("w:delText") if node.tag == qn("w:t") else qn("w:delInstrText")


def _delete_paragraph_mark(paragraph: etree._Element, deletion: etree._Element) -> None:
    """Mark the paragraph mark deleted, so accepting joins the paragraph with the next one."""
    properties = paragraph.find(qn("w:pPr"))
    if properties is None:
        properties = OxmlElement("w:pPr")
        paragraph.insert(0, properties)
    mark = properties.find(qn("w:rPr"))
    if mark is None:
        mark = OxmlElement("w:rPr")
        following = properties.find(qn("w:sectPr"))
        if following is None:
            following = properties.find(qn("w:pPrChange"))
        if following is not None:
            following.addprevious(mark)
        else:
            properties.append(mark)
    existing = mark.find(qn("w:ins"))
    if existing is not None:
        existing.addnext(deletion)
    else:
        mark.insert(0, deletion)


def _top_deletion(element: etree._Element) -> etree._Element:
    parent = element.getparent()
    return parent if parent is not None and parent.tag == qn("w:del") else element


def _paragraph_of(element: etree._Element) -> etree._Element | None:
    for ancestor in element.iterancestors(qn("w:p")):
        return ancestor
    return None


def _new_run(text: str, model: etree._Element | None) -> etree._Element:
    """A run of `text` (tabs as `w:tab`, line breaks as `w:br`) formatted like `model`."""
    run = OxmlElement("w:r")
    properties = model.find(qn("w:rPr")) if model is not None else None
    if properties is not None:
        run.append(copy.deepcopy(properties))
    for i, line in enumerate(text.split("\n")):
        if i:
            run.append(OxmlElement("w:br"))
        for j, piece in enumerate(line.split("\t")):
            if j:
                run.append(OxmlElement("w:tab"))
            if piece:
                node = OxmlElement("w:t")
                node.text = piece
                node.set(qn("xml:space"), "preserve")
                run.append(node)
    return run


def _marker(tag: str, comment_id: str) -> etree._Element:
    marker = OxmlElement(tag)
    marker.set(qn("w:id"), comment_id)
    return marker


def _reference_run(comment_id: str) -> etree._Element:
    run = OxmlElement("w:r")
    properties = OxmlElement("w:rPr")
    style = OxmlElement("w:rStyle")
    style.set(qn("w:val"), "CommentReference")
    properties.append(style)
    run.append(properties)
    run.append(_marker("w:commentReference", comment_id))
    return run
