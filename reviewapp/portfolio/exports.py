"""The portfolio grid as a spreadsheet: XLSX (openpyxl) with a sheet of facts and a sheet of
issues, links back to the app, or the facts sheet as CSV.

Every text cell goes through `csv_safety.csv_safe` (the one formula-injection guard) and is
stored as a string: openpyxl would otherwise write a text starting with "=" as a formula.
Characters XML cannot carry (control characters in extracted text) are dropped, not fatal.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from reviewapp.contracts.models import PassageState
from reviewapp.csv_safety import SafeWriter, csv_safe
from reviewapp.portfolio.selectors import Column, Grid, IssueRow, passage_url

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
LINK_FONT = Font(color="0563C1", underline="single")
MAX_WIDTH = 60


def cell_of(row: dict[str, Any], column: Column) -> tuple[str | int, str | None]:
    """What a grid cell says in a spreadsheet, and the page it links to."""
    if column.kind == "fact":
        fact = row["facts"].get(column.label)
        return (fact["display"], fact["url"]) if fact else ("", None)
    if column.kind == "category":
        if row["review_status"] is None:
            return "", None
        cell = row["categories"].get(column.label)
        if cell is None:
            return _("not found"), None
        state = cell["state"]
        parts = [str(PassageState(state).label) if state else "", str(cell["severity"] or "")]
        if cell.get("open_items"):
            parts.append(_("%(n)s open") % {"n": cell["open_items"]})
        return " · ".join(part for part in parts if part), cell["url"]
    if column.key == "status":
        return row["status_label"], None
    if column.key == "review_status":
        return row["review_status_label"] or "", None
    if column.key == "open_items":
        return int(row["open_items"]), None
    return str(row.get(column.key) or ""), None


def grid_csv(grid: Grid, columns: Sequence[Column], *, base_url: str) -> bytes:
    stream = io.StringIO()
    writer = SafeWriter(stream)
    writer.writerow([_("Contract"), _("Link"), *(column.label for column in columns)])
    for row in grid.rows:
        values = [cell_of(row, column)[0] for column in columns]
        writer.writerow([row["name"], base_url + row["url"], *values])
    return ("\ufeff" + stream.getvalue()).encode()


def grid_xlsx(
    grid: Grid, columns: Sequence[Column], issues: Sequence[IssueRow], *, base_url: str
) -> bytes:
    workbook = Workbook()
    facts = workbook.active
    assert facts is not None  # a new workbook has one sheet
    facts.title = _("Facts")
    _facts_sheet(facts, grid, columns, base_url)
    _issues_sheet(workbook.create_sheet(_("Issues")), issues, base_url)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def _facts_sheet(sheet: Worksheet, grid: Grid, columns: Sequence[Column], base_url: str) -> None:
    _header(sheet, [_("Contract"), *(column.label for column in columns)])
    for number, row in enumerate(grid.rows, start=2):
        _put(sheet, number, 1, row["name"], base_url + row["url"])
        for offset, column in enumerate(columns, start=2):
            value, url = cell_of(row, column)
            _put(sheet, number, offset, value, base_url + url if url else None)
    _fit(sheet, 1 + len(columns))


def _issues_sheet(sheet: Worksheet, issues: Sequence[IssueRow], base_url: str) -> None:
    headers = [
        _("Contract"),
        _("Passage"),
        _("Heading"),
        _("Category"),
        _("Severity"),
        _("State"),
        _("Rules"),
        _("Open item"),
    ]
    _header(sheet, headers)
    for number, issue in enumerate(issues, start=2):
        link = base_url + passage_url(issue.contract_id, issue.passage_index)
        values: list[str | int] = [
            issue.contract_name,
            issue.number or str(issue.passage_index),
            issue.heading,
            issue.category,
            issue.severity,
            issue.state,
            ", ".join(issue.rule_ids),
            _("yes") if issue.open_item else "",
        ]
        for column, value in enumerate(values, start=1):
            _put(sheet, number, column, value, link if column in (1, 2) else None)
    _fit(sheet, len(headers))


def _header(sheet: Worksheet, labels: Sequence[str]) -> None:
    for column, label in enumerate(labels, start=1):
        _put(sheet, 1, column, label, None).font = Font(bold=True)
    sheet.freeze_panes = "B2"


def _put(sheet: Worksheet, row: int, column: int, value: str | int, url: str | None) -> Any:
    cell = sheet.cell(row=row, column=column)
    if isinstance(value, int):
        cell.value = value
        return cell
    cell.value = ILLEGAL_CHARACTERS_RE.sub("", str(csv_safe(value)))
    cell.data_type = "s"  # text, never a formula
    if url:
        cell.hyperlink = url
        cell.font = LINK_FONT
    return cell


def _fit(sheet: Worksheet, columns: int) -> None:
    for column in range(1, columns + 1):
        letter = get_column_letter(column)
        longest = max((len(str(c.value or "")) for c in sheet[letter][:200]), default=8)
        sheet.column_dimensions[letter].width = min(max(longest + 2, 8), MAX_WIDTH)
