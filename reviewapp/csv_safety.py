"""One guard for every CSV the app writes (CSV formula injection), and the rule for XLSX.

A CSV has no cell types, so a text cell that a spreadsheet would evaluate gets a leading single
quote. An XLSX has them: its text cells are stored as explicit string cells (openpyxl's
``data_type = "s"``), which Excel shows as written and never evaluates, so they get no quote
(``reviewapp/portfolio/exports.py``). Spreadsheets skip
white space before a formula (a space, a tab, a line break, a no-break or ideographic space)
and some accept the full-width forms of the signs (＝ ＋ － ＠), so those count too. Numbers stay
numbers.

Written here rather than taken from defusedcsv (3.0): that library checks only the first
character (= + - @ | %), so a formula after leading spaces, a tab or line break, or with a
full-width sign gets through; a guard this small is easier to keep complete than to wrap.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any

FORMULA_SIGNS = frozenset("=+-@\uff1d\uff0b\uff0d\uff20")
_LEADING_SPACE = "".join(
    [" \t\r\n\u00a0\u3000\u202f\u205f\ufeff", *map(chr, range(0x2000, 0x200B))]
)


def csv_safe(value: object) -> object:
    if isinstance(value, str):
        stripped = value.lstrip(_LEADING_SPACE)
        if (stripped[:1] and stripped[0] in FORMULA_SIGNS) or value[:1] in ("\t", "\r"):
            return "'" + value
    return value


class SafeWriter:
    """``csv.writer`` whose every cell goes through ``csv_safe``."""

    def __init__(self, stream: Any, **options: Any) -> None:
        self._writer = csv.writer(stream, **options)

    def writerow(self, row: Iterable[object]) -> Any:
        return self._writer.writerow([csv_safe(cell) for cell in row])

    def writerows(self, rows: Iterable[Iterable[object]]) -> None:
        for row in rows:
            self.writerow(row)
