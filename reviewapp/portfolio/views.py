"""Pages: the portfolio grid, its downloads, re-runs and what a re-run changed."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from reviewapp.accounts.models import Matter
from reviewapp.accounts.selectors import matter_get_for_user
from reviewapp.audit.models import AuditAction
from reviewapp.audit.services import audit_record
from reviewapp.contracts.selectors import contract_get_for_user
from reviewapp.portfolio.comparison import rerun_comparison
from reviewapp.portfolio.exports import CSV_CONTENT_TYPE, XLSX_CONTENT_TYPE, grid_csv, grid_xlsx
from reviewapp.portfolio.matter_rerun import matter_rerun_latest, matter_rerun_start
from reviewapp.portfolio.rerun import RerunRefused, contract_rerun, user_may_rerun
from reviewapp.portfolio.selectors import Column, Grid, grid_columns, grid_issues, portfolio_grid
from reviewapp.reviews.models import ReviewSnapshot


def _matter_or_404(request: HttpRequest, matter_id: int) -> Matter:
    matter = matter_get_for_user(user=request.user, matter_id=matter_id)
    if matter is None:
        raise Http404("No such matter.")
    return matter


@login_required
def grid_page(request: HttpRequest, matter_id: int) -> HttpResponse:
    matter = _matter_or_404(request, matter_id)
    context = {
        "matter": matter,
        "may_rerun": user_may_rerun(user=request.user, matter_id=matter.pk),
        "rerun": matter_rerun_latest(matter_id=matter.pk),
    }
    return render(request, "portfolio/grid.html", context)


def chosen_columns(grid: Grid, keys: str) -> list[Column]:
    """The columns named in ``keys`` (comma-separated, in that order), else all of them."""
    columns = grid_columns(grid)
    wanted = [key for key in keys.split(",") if key]
    if not wanted:
        return columns
    by_key = {column.key: column for column in columns}
    return [by_key[key] for key in wanted if key in by_key]


@never_cache
@require_GET
@login_required
def grid_export(request: HttpRequest, matter_id: int, fmt: str) -> HttpResponse:
    matter = _matter_or_404(request, matter_id)
    grid = portfolio_grid(matter_id=matter.pk)
    columns = chosen_columns(grid, request.GET.get("columns", ""))
    base_url = request.build_absolute_uri("/").rstrip("/")
    if fmt == "xlsx":
        body = grid_xlsx(grid, columns, grid_issues(matter_id=matter.pk), base_url=base_url)
        content_type = XLSX_CONTENT_TYPE
    else:
        body, content_type = grid_csv(grid, columns, base_url=base_url), CSV_CONTENT_TYPE
    audit_record(
        organisation_id=matter.organisation_id,
        action=AuditAction.EXPORT_CREATED,
        actor_kind="user",
        actor=request.user.get_username(),
        target_type="matter",
        target_id=matter.pk,
        data={"format": f"grid.{fmt}", "contracts": len(grid.rows), "columns": len(columns)},
    )
    response = HttpResponse(body, content_type=content_type)
    filename = f"{slugify(matter.name) or 'matter'}-grid.{fmt}"
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=filename
    )
    return response


@require_POST
@login_required
def matter_rerun_view(request: HttpRequest, matter_id: int) -> HttpResponse:
    matter = _matter_or_404(request, matter_id)
    if not user_may_rerun(user=request.user, matter_id=matter.pk):
        raise PermissionDenied
    rerun = matter_rerun_start(matter=matter, user=request.user)
    messages.success(
        request,
        gettext("Re-running %(n)s contracts on the playbook in force.")
        % {"n": rerun.items.count()},
    )
    return redirect("portfolio-grid", matter.pk)


@require_POST
@login_required
def contract_rerun_view(request: HttpRequest, contract_id: int) -> HttpResponse:
    contract = contract_get_for_user(user=request.user, contract_id=contract_id)
    if contract is None:
        raise Http404("No such contract.")
    if not user_may_rerun(user=request.user, matter_id=contract.matter_id):
        raise PermissionDenied
    try:
        snapshot = contract_rerun(contract_id=contract.pk, user=request.user)
    except RerunRefused as refused:
        messages.info(request, str(refused))
        return redirect(reverse("portfolio-grid", args=[contract.matter_id]))
    return redirect("portfolio-comparison", contract.pk, snapshot.pk)


@login_required
def comparison_page(request: HttpRequest, contract_id: int, snapshot_id: int) -> HttpResponse:
    contract = contract_get_for_user(user=request.user, contract_id=contract_id)
    snapshot = (
        ReviewSnapshot.objects.filter(pk=snapshot_id, review__contract_id=contract_id)
        .select_related("review__playbook_version")
        .first()
    )
    if contract is None or snapshot is None:
        raise Http404("No such re-run.")
    context = {
        "contract": contract,
        "comparison": rerun_comparison(snapshot=snapshot),
        "may_rerun": user_may_rerun(user=request.user, matter_id=contract.matter_id),
    }
    return render(request, "portfolio/comparison.html", context)
