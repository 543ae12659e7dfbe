"""The admins' reports page and its CSV and PDF exports (same filters, same figures)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from reviewapp.audit.reports.charts import bar_chart, column_chart
from reviewapp.audit.reports.choices import report_choices
from reviewapp.audit.reports.exports import report_csv, report_pdf
from reviewapp.audit.reports.figures import Report, ReportChoices
from reviewapp.audit.reports.forms import ReportFilterForm
from reviewapp.audit.reports.selectors import report_build
from reviewapp.audit.reports.summary import report_summary
from reviewapp.rules.display_labels import category_label
from reviewapp.rules.selectors import organisations_administered


def _report(request: HttpRequest) -> tuple[ReportFilterForm, ReportChoices, Report | None]:
    organisation_ids = tuple(
        organisations_administered(user=request.user).values_list("pk", flat=True)
    )
    if not organisation_ids:
        raise PermissionDenied("Reports are for organisation admins.")
    choices = report_choices(organisation_ids=organisation_ids)
    form = ReportFilterForm(request.GET, choices=choices)
    if not form.is_valid():
        return form, choices, None
    filters = form.report_filters(organisation_ids=organisation_ids)
    return form, choices, report_build(filters=filters)


@login_required
def reports_page(request: HttpRequest) -> HttpResponse:
    form, _choices, report = _report(request)
    context: dict = {"form": form, "report": report, "query": request.GET.urlencode()}
    if report is not None:
        context |= {
            "sections": report_summary(report),
            "series_chart": column_chart(report.series),
            "rule_chart": bar_chart([(row.rule_id, row.hits) for row in report.rules]),
            "category_chart": bar_chart(
                [(category_label(name), hits) for name, hits in report.categories]
            ),
        }
    return render(request, "reports/reports.html", context, status=200 if report else 400)


def _download(request: HttpRequest, kind: str) -> HttpResponse:
    form, choices, report = _report(request)
    if report is None:
        return render(request, "reports/reports.html", {"form": form}, status=400)
    name = f"clausewise-report-{report.filters.date_from}-{report.filters.date_to}.{kind}"
    if kind == "csv":
        response = HttpResponse(report_csv(report, choices), content_type="text/csv; charset=utf-8")
    else:
        response = HttpResponse(report_pdf(report, choices), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
def reports_csv(request: HttpRequest) -> HttpResponse:
    return _download(request, "csv")


@login_required
def reports_pdf(request: HttpRequest) -> HttpResponse:
    return _download(request, "pdf")
