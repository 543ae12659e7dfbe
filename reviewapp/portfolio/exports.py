"""The portfolio grid as a spreadsheet: XLSX (openpyxl) with a sheet of facts and a sheet of
issues, links back to the app, or the facts sheet as CSV.

Every text cell of the XLSX is an explicit string cell (``data_type`` "s"), as
`csv_safety` says for spreadsheets that have cell types: Excel shows ``=1+1.txt`` as that text
and never runs it, and no apostrophe is added (openpyxl would otherwise write a text starting
with "=" as a formula). The CSV, which has no types, goes through `csv_safety.csv_safe`.
Characters XML cannot carry (control characters in extracted text) are dropped, not fatal.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter

from reviewapp.contracts.models import PassageState
from reviewapp.csv_safety import SafeWriter
from reviewapp.portfolio.selectors import (
    Column,
    Grid,
    IssueRow,
    contract_url_template,
    passage_url,
)
from reviewapp.rules.display_labels import category_label, severity_label
from reviewapp.text.facts.model import DATE_FACTS

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
LINK_FONT = Font(color="0563C1", underline="single")
BOLD_FONT = Font(bold=True)
MAX_WIDTH = 60
DATE_FORMAT = "yyyy-mm-dd"  # read alike whatever the reader's Excel locale


@dataclass(frozen=True)
class QualifiedDate:
    """A whole date with our words around it ("about Feb. 4, 2005", "Feb. 4, 2005 (the
    agreement date)"): a date cell in XLSX whose format shows the words, so the column still
    sorts and filters by date; the words as the page shows them in CSV."""

    day: date
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.before}{self.day.isoformat()}{self.after}"

    @property
    def qualifier(self) -> str:
        """Our words alone: "about", "unsure", "the agreement date"."""
        words = " ".join(part.strip() for part in (self.before, self.after) if part.strip())
        return words[1:-1] if words.startswith("(") and words.endswith(")") else words

    def number_format(self) -> str:
        def literal(words: str) -> str:
            return f'"{words.replace(chr(34), "")}"' if words else ""

        return f"{literal(self.before)}{DATE_FORMAT}{literal(self.after)}"


def cell_of(
    row: dict[str, Any], column: Column
) -> tuple[str | int | date | QualifiedDate, str | None]:
    """What a grid cell says in a spreadsheet, and the page it links to. A date the contract
    states plainly is a date (a date cell in XLSX, ISO 8601 in CSV), so a spreadsheet sorts
    and filters it; one with a qualifier ("about", "unsure", "the agreement date") stays text."""
    if column.kind == "fact":
        fact = row["facts"].get(column.name or column.label)
        if not fact:
            return "", None
        shown: str | date | QualifiedDate = fact["display"]
        if fact.get("date"):
            shown = date.fromisoformat(fact["date"])
        elif fact.get("qualified_date"):
            before, after = fact["date_words"]
            shown = QualifiedDate(date.fromisoformat(fact["qualified_date"]), before, after)
        return shown, _passage_link(row, fact)
    if column.kind == "category":
        if row["review_status"] is None:
            return "", None
        cell = row["categories"].get(column.name or column.label)
        if cell is None:
            return _("not found"), None
        state = cell["state"]
        severity = cell.get("severity_label") or cell["severity"] or ""
        parts = [str(PassageState(state).label) if state else "", str(severity)]
        if cell.get("open_items"):
            parts.append(_("%(n)s open") % {"n": cell["open_items"]})
        return " · ".join(part for part in parts if part), _passage_link(row, cell)
    if column.key == "status":
        return row["status_label"], None
    if column.key == "review_status":
        return row["review_status_label"] or "", None
    if column.key == "open_items":
        return int(row["open_items"]), None
    return str(row.get(column.key) or ""), None


def _passage_link(row: dict[str, Any], cell: dict[str, Any]) -> str:
    """A cell's passage on the review page (the contract's page without one)."""
    index = cell.get("passage_index")
    return row["url"] if index is None else f"{row['url']}#passage-{index}"


def grid_csv(grid: Grid, columns: Sequence[Column], *, base_url: str) -> bytes:
    stream = io.StringIO()
    writer = SafeWriter(stream)
    writer.writerow([_("Contract"), _("Link"), *(column.label for column in columns)])
    for row in grid.rows:
        values = [_csv_value(cell_of(row, column)[0]) for column in columns]
        writer.writerow([row["name"], base_url + row["url"], *values])
    return ("\ufeff" + stream.getvalue()).encode()


def _csv_value(value: str | int | date | QualifiedDate) -> str | int | date:
    return str(value) if isinstance(value, QualifiedDate) else value


def grid_xlsx(
    grid: Grid, columns: Sequence[Column], issues: Sequence[IssueRow], *, base_url: str
) -> bytes:
    """Written in openpyxl's write-only mode: rows stream out, nothing is kept per cell."""
    workbook = Workbook(write_only=True)
    _write(workbook.create_sheet(_("Facts")), *_facts_rows(grid, columns, base_url))
    _write(workbook.create_sheet(_("Issues")), *_issues_rows(issues, base_url))
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


Cell = tuple[str | int | date | QualifiedDate, str | None]  # a value, the page it links to


def _facts_rows(
    grid: Grid, columns: Sequence[Column], base_url: str
) -> tuple[list[str], list[list[Cell]]]:
    """A date fact's column is followed by its qualifier's ("about", "unsure", "the agreement
    date"), so a spreadsheet filters the dates we are not sure of while the date column sorts."""
    header = [_("Contract")]
    for column in columns:
        header.append(column.label)
        if _is_date_fact(column):
            header.append(_("%(fact)s: qualifier") % {"fact": column.label})
    rows = []
    for row in grid.rows:
        cells: list[Cell] = [(row["name"], base_url + row["url"])]
        for column in columns:
            value, url = cell_of(row, column)
            cells.append((value, base_url + url if url else None))
            if _is_date_fact(column):
                cells.append((value.qualifier if isinstance(value, QualifiedDate) else "", None))
        rows.append(cells)
    return header, rows


def _is_date_fact(column: Column) -> bool:
    return column.kind == "fact" and (column.name or column.label) in DATE_FACTS


def _issues_rows(issues: Sequence[IssueRow], base_url: str) -> tuple[list[str], list[list[Cell]]]:
    header = [
        _("Contract"),
        _("Passage"),
        _("Heading"),
        _("Category"),
        _("Severity"),
        _("State"),
        _("Rules"),
        _("Open item"),
    ]
    template = contract_url_template()
    rows: list[list[Cell]] = []
    for issue in issues:
        link = base_url + passage_url(issue.contract_id, issue.passage_index, template)
        state = str(PassageState(issue.state).label) if issue.state else ""
        rows.append(
            [
                (issue.contract_name, None),
                (issue.number or str(issue.passage_index), link),
                (issue.heading, None),
                (category_label(issue.category), None),
                (severity_label(issue.severity), None),
                (state, None),
                (", ".join(issue.rule_ids), None),
                (_("yes") if issue.open_item else "", None),
            ]
        )
    return header, rows


def _write(sheet: Any, header: list[str], rows: list[list[Cell]]) -> None:
    """Widths first (a write-only sheet takes them before any row), then the rows."""
    for number, label in enumerate(header, start=1):
        longest = max([len(label), *(len(str(row[number - 1][0])) for row in rows[:200])])
        sheet.column_dimensions[get_column_letter(number)].width = min(longest + 2, MAX_WIDTH)
    sheet.freeze_panes = "B2"
    sheet.append([_cell(sheet, label, None, bold=True) for label in header])
    for row in rows:
        sheet.append([_cell(sheet, value, url) for value, url in row])


def _cell(
    sheet: Any, value: str | int | date | QualifiedDate, url: str | None, *, bold: bool = False
) -> Any:
    if isinstance(value, int):
        return value
    if isinstance(value, QualifiedDate):
        cell = WriteOnlyCell(sheet, value=value.day)
        cell.number_format = value.number_format()
    elif isinstance(value, date):
        cell = WriteOnlyCell(sheet, value=value)
        cell.number_format = DATE_FORMAT
    else:
        cell = WriteOnlyCell(sheet, value=ILLEGAL_CHARACTERS_RE.sub("", value))
        cell.data_type = "s"  # text, never a formula
    if url:
        cell.hyperlink = url
        cell.font = LINK_FONT
    elif bold:
        cell.font = BOLD_FONT
    return cell
