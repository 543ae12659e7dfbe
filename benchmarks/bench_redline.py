"""Exporting the counterparty's Word file with tracked changes (reviewapp.text.wordml).

    .venv/bin/python benchmarks/bench_redline.py [--pages 60] [--redlines 200]

Target: a 60-page DOCX (headings, numbered clauses in two differently formatted runs, a table
per page, header and footer) with 200 accepted redlines and a comment per redline exports in at
most 5 s. The page count is LibreOffice's when soffice is installed, else an estimate.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TARGET_S = 5.0
CLAUSE = (
    "The Supplier shall indemnify the Customer against all losses, damages, costs and expenses "
    "arising from any breach of this Agreement by the Supplier, its employees or subcontractors, "
    "without limit, and shall keep the Customer informed of any claim number {n}."
)


def long_docx(pages: int) -> bytes:
    import docx

    document = docx.Document()
    section = document.sections[0]
    section.header.paragraphs[0].text = "Master Services Agreement — confidential"
    section.footer.paragraphs[0].text = "Acme Ltd / Globex GmbH"
    n = 0
    for page in range(pages):
        document.add_heading(f"Part {page + 1}", level=1)
        for _ in range(6):
            paragraph = document.add_paragraph(style="List Number")
            paragraph.add_run(f"Clause {n}. ").bold = True
            paragraph.add_run(CLAUSE.format(n=n))
            n += 1
        table = document.add_table(rows=3, cols=3)
        table.style = "Table Grid"
        for r in range(3):
            for c in range(3):
                table.cell(r, c).text = f"Fee {page}.{r}.{c}: USD {100 * (r + c + 1)}"
        document.add_page_break()
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def page_count(content: bytes) -> str:
    soffice = shutil.which("soffice")
    if soffice is None:
        return "unknown (soffice not installed)"
    from pypdf import PdfReader

    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "long.docx"
        source.write_bytes(content)
        subprocess.run(
            [soffice, f"-env:UserInstallation=file://{folder}/profile", "--headless",
             "--convert-to", "pdf", "--outdir", folder, str(source)],
            check=True, capture_output=True, timeout=300,
        )  # fmt: skip
        return str(len(PdfReader(str(Path(folder) / "long.pdf")).pages))


def _bounds(old: str, new: str) -> tuple[int, int]:
    """Characters the two clauses share at the start and at the end: the change is between."""
    prefix = len(os.path.commonprefix([old, new]))
    suffix = len(os.path.commonprefix([old[prefix:][::-1], new[prefix:][::-1]]))
    return prefix, suffix


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--redlines", type=int, default=200)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewapp.settings.test")
    import django

    django.setup()
    from reviewapp.text.wordml import Change, Note, docx_text, docx_tracked

    original = long_docx(args.pages)
    text = docx_text(original)
    starts = []
    at = text.find("without limit")
    while at >= 0:
        starts.append(at)
        at = text.find("without limit", at + 1)
    step = max(len(starts) // args.redlines, 1)
    chosen = starts[::step][: args.redlines]
    if len(chosen) < args.redlines:
        print(f"only {len(chosen)} clauses for {args.redlines} redlines: use more --pages")
        return 1
    now = datetime.now(UTC)
    started_wall, started_cpu = time.perf_counter(), time.process_time()
    changes, notes = [], []
    for start in chosen:
        clause_start = text.rfind("\n", 0, start) + 1
        clause_end = text.find("\n", start)
        original_clause = text[clause_start:clause_end]
        new = original_clause.replace("without limit", "up to the fees paid in the last year")
        prefix, suffix = _bounds(original_clause, new)
        changes.append(
            Change(clause_start + prefix, clause_end - suffix, new[prefix : len(new) - suffix],
                   "Lee Lawyer", now)
        )  # fmt: skip
        notes.append(Note(start, start + 13, ("Uncapped Liability (high)", "Cap the indemnity.")))
    result = docx_tracked(content=original, text=text, changes=changes, notes=notes)
    wall, cpu = time.perf_counter() - started_wall, time.process_time() - started_cpu
    print(
        f"{len(text):,} characters, {page_count(original)} pages (LibreOffice), "
        f"{result.placed} tracked changes ({len(result.unplaced)} not placed), "
        f"{len(notes)} comments"
    )
    print(f"export: {wall:.2f} s wall, {cpu:.2f} s CPU (target {TARGET_S:.0f} s)")
    if result.placed != args.redlines:
        print("missed: not every redline became a tracked change")
        return 1
    if wall > TARGET_S:
        print(f"missed the {TARGET_S:.0f} s target")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
