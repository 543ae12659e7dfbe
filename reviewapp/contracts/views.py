"""Pages: the matter list, a matter's upload page and a contract's passages."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext

from reviewapp.accounts.models import Role
from reviewapp.accounts.selectors import (
    matter_get_for_user,
    matter_list_for_user,
    matter_members,
    organisations_administered,
)
from reviewapp.contracts.deletion import (
    DELETION_REASONS,
    ContractDeletionRefused,
    contract_delete,
    contract_get_for_deletion,
    contract_ids_deletable,
    contract_may_delete,
)
from reviewapp.contracts.models import PassageState
from reviewapp.contracts.review_page import last_event_seq, review_page_build
from reviewapp.contracts.selectors import contract_get_for_user, contract_list_for_user
from reviewapp.reviews.models import DraftStatus, ReviewStatus
from reviewapp.reviews.reasons import reason_labels
from reviewapp.reviews.selectors import review_for_contract


@login_required
def home(request: HttpRequest) -> HttpResponse:
    matters = list(matter_list_for_user(user=request.user))
    administered = list(organisations_administered(user=request.user).order_by("name"))
    return render(
        request, "contracts/home.html", {"matters": matters, "administered": administered}
    )


@login_required
def matter_detail(request: HttpRequest, matter_id: int) -> HttpResponse:
    matter = matter_get_for_user(user=request.user, matter_id=matter_id)
    if matter is None:
        raise Http404("No such matter.")
    contracts = contract_list_for_user(user=request.user, matter_id=matter.pk)
    manages = organisations_administered(user=request.user).filter(pk=matter.organisation_id)
    context = {
        "matter": matter,
        "members": matter_members(matter=matter) if manages.exists() else None,
        "roles": Role.choices,
        "contracts": contracts,
        "deletable": set()
        if matter.legal_hold
        else contract_ids_deletable(user=request.user, matter=matter),
        "max_upload_mb": settings.UPLOAD_MAX_BYTES // (1024 * 1024),
        "max_upload_bytes": settings.UPLOAD_MAX_BYTES,
    }
    return render(request, "contracts/matter.html", context)


@login_required
def contract_detail(request: HttpRequest, contract_id: int) -> HttpResponse:
    contract = contract_get_for_user(user=request.user, contract_id=contract_id)
    if contract is None:
        raise Http404("No such contract.")
    seq = last_event_seq()
    review = review_for_contract(contract=contract)
    page = review_page_build(contract=contract, review=review)
    context = {
        "contract": contract,
        "passages": page.passages,
        "state_counts": [
            (state, label, page.counts[state]) for state, label in PassageState.choices
        ],
        "categories": page.categories,
        "severities": page.severities,
        "viewer": page.viewer,
        "review": review,
        "draft": getattr(review, "draft", None) if review else None,
        "last_event_seq": seq,
        "labels": _labels(),
        "may_delete": not contract.matter.legal_hold
        and contract_may_delete(user=request.user, contract=contract),
    }
    return render(request, "contracts/contract.html", context)


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


def _labels() -> dict[str, object]:
    """The page script's words, in the reader's language."""
    return {
        "states": dict(PassageState.choices),
        "reviewStatuses": dict(ReviewStatus.choices),
        "draftStatuses": dict(DraftStatus.choices),
        "reasons": reason_labels(),
        "checkedByClaude": gettext("Checked by Claude"),
        "checkedOffline": gettext("Checked by the offline engine"),
        "suggestedWording": gettext("Suggested wording"),
        "askCounterparty": gettext("Ask the counterparty"),
        "acceptedBy": gettext("Lawyer decision: accepted by %(who)s"),
        "rejectedBy": gettext("Lawyer decision: rejected by %(who)s"),
        "claimedBy": gettext("Claimed by %(who)s"),
        "waiting": gettext("Waiting for a lawyer"),
        "due": gettext("due %(due)s UTC"),
        "escalated": gettext("Escalated: overdue since %(due)s UTC"),
        "visible": gettext("%(shown)s of %(total)s passages shown"),
        "passage": gettext("Passage"),
        "risk": gettext("Risk"),
        "issue": gettext("Issue"),
        "recommendation": gettext("Recommendation"),
        "pdfFailed": gettext("The PDF could not be shown: %(error)s"),
        "notLocated": gettext("Passage %(index)s is on this page (its exact place was not found)"),
        "page": gettext("Page %(page)s"),
        "passwordFailed": gettext("The password could not be sent."),
    }
