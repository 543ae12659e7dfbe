"""The audit log in the app: a contract's history for its matter's members, and the
organisation's log for its admins."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from reviewapp.accounts.selectors import organisations_administered
from reviewapp.audit.pages.forms import AuditLogFilterForm
from reviewapp.audit.pages.history import audit_log_page, contract_history_page
from reviewapp.contracts.selectors import contract_get_for_user


@login_required
def contract_history(request: HttpRequest, contract_id: int) -> HttpResponse:
    contract = contract_get_for_user(user=request.user, contract_id=contract_id)
    if contract is None:
        raise Http404("No such contract.")
    history = contract_history_page(contract=contract, number=request.GET.get("page"))
    return render(
        request, "audit/contract_history.html", {"contract": contract, "history": history}
    )


@login_required
def audit_log(request: HttpRequest) -> HttpResponse:
    organisation_ids = tuple(
        organisations_administered(user=request.user).values_list("pk", flat=True)
    )
    if not organisation_ids:
        raise PermissionDenied("The audit log is for organisation admins.")
    form = AuditLogFilterForm(request.GET, organisation_ids=organisation_ids)
    if not form.is_valid():
        return render(request, "audit/log.html", {"form": form, "log": None}, status=400)
    log = audit_log_page(filters=form.log_filters(), number=request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "log": log, "query": query.urlencode()}
    return render(request, "audit/log.html", context)
