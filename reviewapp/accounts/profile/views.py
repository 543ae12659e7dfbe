"""The signed-in person's settings page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from reviewapp.accounts.profile.selectors import time_zone_chosen, time_zone_names
from reviewapp.accounts.profile.services import ProfileChangeRefused, profile_time_zone_set


@login_required
def account_settings(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            profile_time_zone_set(user=request.user, time_zone=request.POST.get("time_zone", ""))
        except ProfileChangeRefused as refused:
            messages.error(request, str(refused))
        else:
            messages.success(request, _("Your settings are saved."))
        return redirect("account-settings")
    context = {"time_zones": time_zone_names(), "chosen": time_zone_chosen(user=request.user)}
    return render(request, "accounts/settings.html", context)
