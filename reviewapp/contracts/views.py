"""Pages: deleting a contract."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext

from reviewapp.accounts.selectors import (
    matter_get_for_user,
)
from reviewapp.contracts.deletion import (
    DELETION_REASONS,
    ContractDeletionRefused,
    contract_delete,
    contract_get_for_deletion,
    contract_may_delete,
)


@login_required
def contract_delete_view(request: HttpRequest, contract_id: int) -> HttpResponse:
    """A confirmation page (GET) and the deletion (POST); back to the matter with a message."""
    contract = contract_get_for_deletion(user=request.user, contract_id=contract_id)
    if contract is None:
        raise Http404("No such contract.")
    if not contract_may_delete(user=request.user, contract=contract):
        raise PermissionDenied("Only an admin of the organisation can delete this contract.")
    if request.method == "POST":
        try:
            contract_delete(
                contract=contract,
                deleted_by=request.user,
                reason=request.POST.get("reason", ""),
            )
        except ContractDeletionRefused as refused:
            messages.error(request, refused.message)
        else:
            messages.success(
                request, gettext("The contract and everything read from it are deleted.")
            )
            if matter_get_for_user(user=request.user, matter_id=contract.matter_id) is None:
                return redirect("home")  # an organisation admin who is not on the matter
            return redirect("matter", contract.matter_id)
    context = {"contract": contract, "reasons": list(DELETION_REASONS.items())}
    return render(request, "contracts/contract_delete.html", context)
