"""The page forms that choose the party the firm acts for (POST, lawyers and admins)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from reviewapp.accounts.selectors import matter_get_for_user
from reviewapp.contracts.selectors import contract_get_for_user
from reviewapp.reviews.acting_for.services import (
    ActingForRefused,
    contract_acting_for_set,
    matter_acting_for_set,
)
from reviewapp.text.facts.parties import Party


class ActingForForm(forms.Form):
    # blank: no choice of its own (a contract then follows the matter)
    name = forms.CharField(max_length=200, required=False)
    role = forms.CharField(max_length=80, required=False)


@login_required
@require_POST
def contract_acting_for(request: HttpRequest, contract_id: int) -> HttpResponse:
    contract = contract_get_for_user(user=request.user, contract_id=contract_id)
    if contract is None:
        raise Http404("No such contract.")
    form = ActingForForm(request.POST)
    if not form.is_valid():
        return _refused(request, _("Choose a party of the contract."), back=contract.pk)
    try:
        party = contract_acting_for_set(
            contract=contract,
            name=form.cleaned_data["name"],
            role=form.cleaned_data["role"],
            set_by=request.user,
        )
    except ActingForRefused as refused:
        return _refused(request, str(refused), back=contract.pk)
    messages.success(request, _said(party, blank=_("This contract follows the matter's party.")))
    return redirect("contract", contract.pk)


@login_required
@require_POST
def matter_acting_for(request: HttpRequest, matter_id: int) -> HttpResponse:
    matter = matter_get_for_user(user=request.user, matter_id=matter_id)
    if matter is None:
        raise Http404("No such matter.")
    form = ActingForForm(request.POST)
    if not form.is_valid():
        return _refused(request, _("Choose a party of the contract."), matter=matter.pk)
    try:
        party = matter_acting_for_set(
            matter=matter,
            name=form.cleaned_data["name"],
            role=form.cleaned_data["role"],
            set_by=request.user,
        )
    except ActingForRefused as refused:
        return _refused(request, str(refused), matter=matter.pk)
    messages.success(request, _said(party, blank=_("The matter has no default party.")))
    return redirect("matter", matter.pk)


def _said(party: Party | None, *, blank: str) -> str:
    if party is None:
        return blank
    return _("We act for: %(party)s") % {"party": party.shown()}


def _refused(
    request: HttpRequest, message: str, *, back: int | None = None, matter: int | None = None
) -> HttpResponse:
    """A choice the service refused: the reason, with the way back, as a 400."""
    context = {"message": message, "contract_id": back, "matter_id": matter}
    return render(request, "reviews/acting_for_refused.html", context, status=400)
