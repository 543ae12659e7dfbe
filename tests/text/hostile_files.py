"""Generators of test documents, friendly and hostile, written into a directory at test time.

Each `make_*` function writes one file into `directory` and returns its path. PDFs are written by
a small hand-made writer (no PDF library is needed to create them), so each can be shaped
exactly: object order, stream contents, page count.
"""

from __future__ import annotations

import random
import struct
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

import docx
from pypdf import PdfReader, PdfWriter

MIB = 1024 * 1024
RANDOM_SEED = 20240601


# --- A minimal PDF writer -------------------------------------------------------------------


def write_pdf(
    path: Path, objects: dict[int, bytes], *, root: int, order: Iterable[int] = ()
) -> Path:
    """Write numbered object bodies as a PDF, in `order` if given, with an xref table."""
    numbers = list(order) or sorted(objects)
    offsets: dict[int, int] = {}
    with open(path, "wb") as file:
        file.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        for number in numbers:
            offsets[number] = file.tell()
            file.write(b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n")
        xref_at = file.tell()
        size = max(objects) + 1
        file.write(b"xref\n0 %d\n0000000000 65535 f \n" % size)
        for number in range(1, size):
            file.write(b"%010d 00000 n \n" % offsets[number])
        file.write(b"trailer\n<< /Size %d /Root %d 0 R >>\n" % (size, root))
        file.write(b"startxref\n%d\n%%%%EOF\n" % xref_at)
    return path


def stream(body: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s >>\nstream\n" % (len(body), extra) + body + b"\nendstream"


def pdf_string(text: str) -> bytes:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return b"(" + escaped.encode("cp1252") + b")"


def text_page_content(lines: list[str]) -> bytes:
    shown = b" T*\n".join(pdf_string(line) + b" Tj" for line in lines)
    return b"BT\n/F1 11 Tf 14 TL 72 720 Td\n" + shown + b"\nET"


def write_pages_pdf(
    path: Path, contents: list[bytes], resources: bytes, extra: dict[int, bytes]
) -> Path:
    """A PDF whose pages show `contents`; objects 1-2 are the catalog and page tree.

    The catalog and page tree are written last, as many producers do, so that a truncated copy
    loses them.
    """
    first_page = 3 + len(extra)
    objects = dict(extra)
    kids = []
    for index, content in enumerate(contents):
        page, content_number = first_page + 2 * index, first_page + 2 * index + 1
        kids.append(b"%d 0 R" % page)
        objects[page] = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] %s >>" % (
            b"/Resources %s /Contents %d 0 R" % (resources, content_number)
        )
        objects[content_number] = stream(content)
    objects[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[2] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    order = [*sorted(number for number in objects if number > 2), 2, 1]
    return write_pdf(path, objects, root=1, order=order)


HELVETICA = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"


# --- Friendly files ---------------------------------------------------------------------------

CONTRACT_PAGES = [
    [
        "SUPPLY AGREEMENT",
        "This Supply Agreement is made between Acme Corp. (the Supplier) and",
        "Globex Ltd. (the Buyer), effective as of 1 March 2024.",
    ],
    [
        "1. Termination. Either party may terminate this Agreement on ninety",
        "days' written notice. Liquidated damages are capped at $50,000.",
    ],
    ["2. Governing law. This Agreement is governed by the laws of New York."],
]


def make_text_pdf(
    directory: Path, pages: list[list[str]] = CONTRACT_PAGES, name: str = "contract.pdf"
) -> Path:
    contents = [text_page_content(lines) for lines in pages]
    return write_pages_pdf(
        directory / name, contents, b"<< /Font << /F1 3 0 R >> >>", {3: HELVETICA}
    )


def make_encrypted_pdf(directory: Path, user_password: str, name: str = "locked.pdf") -> Path:
    writer = PdfWriter(clone_from=PdfReader(make_text_pdf(directory, name="plain-" + name)))
    writer.encrypt(
        user_password=user_password, owner_password="owner-" + user_password, algorithm="AES-256"
    )
    path = directory / name
    with open(path, "wb") as file:
        writer.write(file)
    return path


def make_docx(directory: Path) -> Path:
    document = docx.Document()
    document.add_heading("Licence Agreement", level=1)
    document.add_paragraph("1. Grant. Licensor grants Licensee a non-exclusive licence.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Party", "Role"
    table.cell(1, 0).text, table.cell(1, 1).text = "Initech", "Licensee"
    document.add_paragraph("2. Term. This Agreement lasts three years.")
    path = directory / "licence.docx"
    document.save(str(path))
    return path


def make_text_file(directory: Path, text: str, encoding: str, name: str) -> Path:
    path = directory / name
    path.write_bytes(text.encode(encoding))
    return path


# --- Hostile files ----------------------------------------------------------------------------


def make_empty_file(directory: Path) -> Path:
    path = directory / "empty.pdf"
    path.write_bytes(b"")
    return path


def make_html_named_pdf(directory: Path) -> Path:
    path = directory / "contract.pdf"
    path.write_text(
        "<!DOCTYPE html>\n<html><head><title>Login</title></head><body>Sign in</body></html>\n"
    )
    return path


def make_truncated_pdf(directory: Path) -> Path:
    whole = make_text_pdf(directory, name="whole.pdf").read_bytes()
    path = directory / "truncated.pdf"
    path.write_bytes(whole[: len(whole) // 2])
    return path


def make_bomb_pdf(directory: Path, inflated_bytes: int = 1100 * MIB) -> Path:
    """A one-page PDF whose content stream inflates from about 1 MB to over 1 GB of zeros."""
    compressed = b"".join(deflated_zeros(inflated_bytes))
    content = stream(compressed, b"/Filter /FlateDecode")
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        4: content,
        5: HELVETICA,
    }
    return write_pdf(directory / "bomb.pdf", objects, root=1)


def deflated_zeros(total: int, chunk: int = MIB) -> Iterator[bytes]:
    """A zlib stream of `total` zero bytes, made without compressing them all.

    After a full flush the compressor starts afresh, so every further chunk of zeros compresses
    to the same bytes: compress two chunks, then repeat the second. The stream ends with an
    empty final block and the Adler-32 of n zeros, which is ((n mod 65521) << 16) | 1.
    """
    compressor = zlib.compressobj(9)
    zeros = bytes(chunk)
    yield compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    repeated = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    for _ in range(total // chunk - 1):
        yield repeated
    yield b"\x03\x00" + struct.pack(">I", ((total % 65521) << 16) | 1)


def make_blank_pages_pdf(directory: Path, pages: int = 10_000) -> Path:
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % (3 + index) for index in range(pages)), pages),
    }
    for index in range(pages):
        objects[3 + index] = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"
    return write_pdf(directory / "blank-pages.pdf", objects, root=1)


def make_oversized_file(directory: Path, size: int = 30 * MIB) -> Path:
    """A 30 MB 'PDF': the size alone must refuse it, so its body can stay sparse."""
    path = directory / "huge.pdf"
    with open(path, "wb") as file:
        file.write(b"%PDF-1.7\n")
        file.truncate(size)
    return path


def make_image_only_pdf(directory: Path, pages: int = 2) -> Path:
    """A scan: each page paints one grey image and has no text."""
    pixels = bytes(random.Random(RANDOM_SEED).randbytes(64 * 64))
    image = stream(
        pixels,
        b"/Type /XObject /Subtype /Image /Width 64 /Height 64 "
        b"/ColorSpace /DeviceGray /BitsPerComponent 8",
    )
    contents = [b"q 612 0 0 792 0 0 cm /Im1 Do Q"] * pages
    return write_pages_pdf(
        directory / "scan.pdf", contents, b"<< /XObject << /Im1 3 0 R >> >>", {3: image}
    )


def make_zip_bomb_docx(directory: Path, inflated_bytes: int = 20 * MIB) -> Path:
    """A DOCX whose document part inflates a thousandfold (20 MB here; real bombs go further)."""
    path = directory / "bomb.docx"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b" " * inflated_bytes)
    return path


def make_random_bytes_txt(directory: Path, size: int = 256 * 1024) -> Path:
    path = directory / "notes.txt"
    path.write_bytes(random.Random(RANDOM_SEED).randbytes(size))
    return path


def make_slow_pdf(directory: Path, shows: int = 300_000) -> Path:
    """Valid, small, and slow to read: one page showing a short string many times."""
    content = b"BT /F1 11 Tf 72 720 Td\n" + b"(ab) Tj 1 0 Td\n" * shows + b"ET"
    compressed = zlib.compress(content, 9)
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        4: stream(compressed, b"/Filter /FlateDecode"),
        5: HELVETICA,
    }
    return write_pdf(directory / "slow.pdf", objects, root=1)
