"""Page forms for organisation admins: new matters and who is on a matter."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from reviewapp.accounts.models import Matter, Role
from reviewapp.accounts.selectors import matter_get_for_user, organisations_administered
from reviewapp.accounts.services import (
    RETENTION_MAX_DAYS,
    MatterChangeRefused,
    matter_create,
    matter_legal_hold_lift,
    matter_legal_hold_set,
    matter_retention_set,
    membership_remove,
    membership_set,
)


class MatterForm(forms.Form):
    organisation = forms.IntegerField()
    name = forms.CharField(max_length=200, label=gettext_lazy("Name"))
    reference = forms.CharField(max_length=64, required=False, label=gettext_lazy("Reference"))


class MemberForm(forms.Form):
    username = forms.CharField(max_length=150, label=gettext_lazy("Username"))
    role = forms.ChoiceField(choices=Role.choices, label=gettext_lazy("Role"))


@login_required
@require_POST
def matter_new(request: HttpRequest) -> HttpResponse:
    form = MatterForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give the matter a name."))
        return redirect("home")
    administered = organisations_administered(user=request.user)
    organisation = administered.filter(pk=form.cleaned_data["organisation"]).first()
    if organisation is None:
        raise Http404("No such organisation.")
    try:
        matter = matter_create(
            organisation=organisation,
            name=form.cleaned_data["name"],
            reference=form.cleaned_data["reference"],
            by=request.user,
        )
    except MatterChangeRefused as refused:
        messages.error(request, str(refused))
        return redirect("home")
    messages.success(request, _("Matter created. Add the people who work on it below."))
    return redirect("matter", matter.pk)


@login_required
@require_POST
def member_set(request: HttpRequest, matter_id: int) -> HttpResponse:
    matter = _managed_matter(request, matter_id)
    form = MemberForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give a username and a role."))
        return redirect("matter", matter.pk)
    try:
        membership = membership_set(
            matter=matter,
            username=form.cleaned_data["username"],
            role=form.cleaned_data["role"],
            by=request.user,
        )
    except MatterChangeRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(
            request,
            _("%(name)s is on this matter as %(role)s.")
            % {"name": membership.user.get_username(), "role": membership.get_role_display()},
        )
    return redirect("matter", matter.pk)


@login_required
@require_POST
def member_remove(request: HttpRequest, matter_id: int, membership_id: int) -> HttpResponse:
    matter = _managed_matter(request, matter_id)
    try:
        membership_remove(matter=matter, membership_id=membership_id, by=request.user)
    except MatterChangeRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, _("Removed from this matter."))
    return redirect("matter", matter.pk)


class RetentionForm(forms.Form):
    retention_days = forms.IntegerField(min_value=1, max_value=RETENTION_MAX_DAYS, required=False)


@login_required
@require_POST
def retention_set(request: HttpRequest, matter_id: int) -> HttpResponse:
    matter = _managed_matter(request, matter_id)
    form = RetentionForm(request.POST)
    if not form.is_valid():
        messages.error(
            request,
            _("Keep contracts for 1 to %(max)s days, or leave it empty to keep them.")
            % {"max": RETENTION_MAX_DAYS},
        )
        return redirect("matter", matter.pk)
    days = form.cleaned_data["retention_days"]
    matter = matter_retention_set(matter=matter, days=days, by=request.user)
    if days is None:
        messages.success(
            request, _("Contracts in this matter are kept until someone deletes them.")
        )
    else:
        messages.success(
            request,
            _("Contracts in this matter are deleted %(days)s days after upload.") % {"days": days},
        )
    return redirect("matter", matter.pk)


@login_required
@require_POST
def legal_hold_set(request: HttpRequest, matter_id: int) -> HttpResponse:
    matter = _managed_matter(request, matter_id)
    try:
        matter_legal_hold_set(matter=matter, reason=request.POST.get("reason", ""), by=request.user)
    except MatterChangeRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, _("The matter is on legal hold: nothing in it can be deleted."))
    return redirect("matter", matter.pk)


@login_required
@require_POST
def legal_hold_lift(request: HttpRequest, matter_id: int) -> HttpResponse:
    matter = _managed_matter(request, matter_id)
    try:
        matter_legal_hold_lift(matter=matter, by=request.user)
    except MatterChangeRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, _("Legal hold lifted: deletion and retention apply again."))
    return redirect("matter", matter.pk)


def _managed_matter(request: HttpRequest, matter_id: int) -> Matter:
    matter = matter_get_for_user(user=request.user, matter_id=matter_id)
    administered = organisations_administered(user=request.user)
    if matter is None or not administered.filter(pk=matter.organisation_id).exists():
        raise Http404("No such matter.")
    return matter
