"""The report as CSV (tables separated by a blank line) and as a PDF (reportlab)."""

from __future__ import annotations

import io
from xml.sax.saxutils import escape

from django.utils.translation import gettext as _
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from reviewapp.audit.reports.figures import Report, ReportChoices
from reviewapp.audit.reports.summary import filter_lines, report_summary
from reviewapp.csv_safety import SafeWriter

CJK_FONT = "STSong-Light"  # a CID font every PDF reader has; no font file to ship


def rule_header() -> list[str]:
    return [
        _("Rule"),
        _("Category"),
        _("Hits"),
        _("Ended confirmed"),
        _("Ended rejected"),
        _("Still open"),
        _("Decided by a lawyer"),
        _("Noise (confirmed / settled hits)"),
    ]


def rule_cells(report: Report) -> list[list[str]]:
    return [
        [
            row.rule_id,
            row.category,
            str(row.hits),
            str(row.confirmed),
            str(row.rejected),
            str(row.open),
            str(row.human),
            row.noise_percent,
        ]
        for row in report.rules
    ]


def report_csv(report: Report, choices: ReportChoices) -> str:
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow([_("Clausewise audit report")])
    writer.writerows([label, value] for label, value in filter_lines(report, choices))
    writer.writerow([])
    writer.writerow(["section", "figure", "key", "value", "display"])
    for section in report_summary(report):
        for fig in section.figures:
            value = "" if fig.value is None else fig.value
            writer.writerow([section.title, fig.label, fig.key, value, fig.display])
    writer.writerow([])
    writer.writerow(
        ["purpose", "model", "calls", "input", "output", "cache_read", "cache_write", "cost_usd"]
    )
    for u in report.model_usage:
        row = [u.purpose, u.model, u.calls, u.input_tokens, u.output_tokens, u.cache_read]
        writer.writerow([*row, u.cache_write, u.cost_usd])
    writer.writerow([])
    writer.writerow(rule_header())
    writer.writerows(rule_cells(report))
    writer.writerow([])
    writer.writerow(["period_start", "contracts_reviewed"])
    writer.writerows([day.isoformat(), count] for day, count in report.series)
    return out.getvalue()


def _register_cjk_font() -> None:
    if CJK_FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(CJK_FONT))


def _text(value: str) -> str:
    """Escaped for a Paragraph; text beyond Latin-1 (names in Chinese) in the CJK font."""
    if all(ord(ch) < 256 for ch in value):
        return escape(value)
    return f'<font face="{CJK_FONT}">{escape(value)}</font>'


def _table(rows: list[list[str]], widths: list[float], font_size: float = 10) -> Table:
    style = ParagraphStyle(
        "cell", parent=getSampleStyleSheet()["BodyText"], fontSize=font_size, leading=font_size + 2
    )
    cells = [[Paragraph(_text(cell), style) for cell in row] for row in rows]
    table = Table(cells, colWidths=widths, repeatRows=1)
    table.setStyle(
        TableStyle(
            [
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eef0f3")),
                ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.HexColor("#e5e7eb")),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ]
        )
    )
    return table


def report_pdf(report: Report, choices: ReportChoices) -> bytes:
    _register_cjk_font()
    styles = getSampleStyleSheet()
    story: list = [Paragraph(escape(_("Clausewise audit report")), styles["Title"])]
    for label, value in filter_lines(report, choices):
        story.append(Paragraph(f"<b>{escape(label)}:</b> {_text(value)}", styles["BodyText"]))
    for section in report_summary(report):
        story += [Spacer(1, 4 * mm), Paragraph(escape(section.title), styles["Heading2"])]
        rows = [[_("Figure"), _("Value")]] + [[f.label, f.display] for f in section.figures]
        story.append(_table(rows, [110 * mm, 60 * mm]))
    story += [Spacer(1, 4 * mm), Paragraph(escape(_("Rules")), styles["Heading2"])]
    # Numbers' columns wide enough for the longest word of their header ("confirmed") at 7 pt:
    # a narrower cell makes reportlab cut a word in two ("Ended c onfirmed").
    widths = [40 * mm, 30 * mm] + [18 * mm] * 6
    story.append(_table([rule_header(), *rule_cells(report)], widths, font_size=7))
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(
        buffer,
        pagesize=A4,
        title=_("Clausewise audit report"),
        leftMargin=15 * mm,
        rightMargin=15 * mm,
    )
    doc.build(story)
    return buffer.getvalue()
