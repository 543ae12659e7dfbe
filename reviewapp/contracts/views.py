"""Pages: the matter list, a matter's upload page and a contract's passages."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from reviewapp.accounts.selectors import matter_get_for_user, matter_list_for_user
from reviewapp.contracts.selectors import (
    contract_get_for_user,
    contract_list_for_user,
    passage_list,
)
from reviewapp.reviews.selectors import review_for_contract, verifications_by_passage


@login_required
def home(request: HttpRequest) -> HttpResponse:
    matters = list(matter_list_for_user(user=request.user))
    return render(request, "contracts/home.html", {"matters": matters})


@login_required
def matter_detail(request: HttpRequest, matter_id: int) -> HttpResponse:
    matter = matter_get_for_user(user=request.user, matter_id=matter_id)
    if matter is None:
        raise Http404("No such matter.")
    contracts = contract_list_for_user(user=request.user, matter_id=matter.pk)
    context = {
        "matter": matter,
        "contracts": contracts,
        "max_upload_mb": settings.UPLOAD_MAX_BYTES // (1024 * 1024),
        "max_upload_bytes": settings.UPLOAD_MAX_BYTES,
    }
    return render(request, "contracts/matter.html", context)


@login_required
def contract_detail(request: HttpRequest, contract_id: int) -> HttpResponse:
    contract = contract_get_for_user(user=request.user, contract_id=contract_id)
    if contract is None:
        raise Http404("No such contract.")
    review = review_for_contract(contract=contract)
    verifications = verifications_by_passage(review=review) if review else {}
    passages = list(passage_list(contract=contract))
    for passage in passages:
        passage.verification_row = verifications.get(passage.pk)  # type: ignore[attr-defined]
    context = {
        "contract": contract,
        "passages": passages,
        "review": review,
        "draft": getattr(review, "draft", None) if review else None,
    }
    return render(request, "contracts/contract.html", context)
