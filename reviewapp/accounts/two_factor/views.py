"""The pages of two-factor sign-in: the code asked after the password, setting up an
authenticator app, the account page, and the admins' reset and organisation switch."""

from __future__ import annotations

from base64 import b32encode
from typing import Any
from urllib.parse import urlencode

import segno
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from reviewapp.accounts.lockout import lockout_response
from reviewapp.accounts.models import Membership
from reviewapp.accounts.selectors import matter_get_for_user, organisations_administered
from reviewapp.accounts.two_factor.selectors import (
    recovery_codes_left,
    request_verified,
    two_factor_enrolled,
    two_factor_required,
)
from reviewapp.accounts.two_factor.services import (
    Verification,
    organisation_two_factor_set,
    two_factor_device_pending,
    two_factor_enrol,
    two_factor_reset,
    two_factor_verify,
)


def _next_url(request: HttpRequest) -> str:
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return wanted if safe else resolve_url("home")


def _with_next(url_name: str, next_url: str) -> str:
    return f"{resolve_url(url_name)}?{urlencode({'next': next_url})}"


@login_required
def verify(request: HttpRequest) -> HttpResponse:
    next_url = _next_url(request)
    if request_verified(request=request):
        return redirect(next_url)
    if not two_factor_enrolled(user=request.user):
        return redirect(_with_next("two-factor-setup", next_url))
    wrong = False
    if request.method == "POST":
        outcome = two_factor_verify(request=request, code=request.POST.get("otp_code", ""))
        if outcome is Verification.PASSED:
            return redirect(next_url)
        if outcome is Verification.LOCKED_OUT:
            logout(request)
            return lockout_response(request)
        wrong = True
    return render(request, "accounts/two_factor_verify.html", {"next": next_url, "wrong": wrong})


@login_required
def setup(request: HttpRequest) -> HttpResponse:
    next_url = _next_url(request)
    if two_factor_enrolled(user=request.user):
        target = "two-factor" if request_verified(request=request) else "two-factor-verify"
        return redirect(_with_next(target, next_url))
    wrong = False
    if request.method == "POST":
        codes = two_factor_enrol(request=request, code=request.POST.get("otp_code", ""))
        if codes is not None:
            shown = {"codes": codes, "next": next_url}
            return render(request, "accounts/two_factor_recovery_codes.html", shown)
        wrong = True
    device = two_factor_device_pending(user=request.user)
    context: dict[str, Any] = {
        "next": next_url,
        "wrong": wrong,
        "required": two_factor_required(user=request.user),
        "qr": segno.make(device.config_url, error="m").svg_data_uri(scale=5, border=2),
        "secret": _grouped(b32encode(device.bin_key).decode()),
    }
    return render(request, "accounts/two_factor_setup.html", context)


def _grouped(secret: str) -> str:
    return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))


@login_required
def account(request: HttpRequest) -> HttpResponse:
    context: dict[str, Any] = {
        "enrolled": two_factor_enrolled(user=request.user),
        "required": two_factor_required(user=request.user),
        "recovery_codes_left": recovery_codes_left(user=request.user),
    }
    return render(request, "accounts/two_factor_account.html", context)


@login_required
@require_POST
def member_reset(request: HttpRequest, matter_id: int, membership_id: int) -> HttpResponse:
    """An admin of the matter's organisation resets a member's second factor (a lost phone)."""
    matter = matter_get_for_user(user=request.user, matter_id=matter_id)
    administered = organisations_administered(user=request.user)
    if matter is None or not administered.filter(pk=matter.organisation_id).exists():
        raise Http404("No such matter.")
    membership = Membership.objects.filter(pk=membership_id, matter=matter).first()
    if membership is None or membership.user_id == request.user.pk:
        raise Http404("No such member.")
    removed = two_factor_reset(user=membership.user, by=request.user)
    name = membership.user.get_username()
    if removed:
        message = _("Two-factor sign-in of %(name)s is reset: they set it up again.")
    else:
        message = _("%(name)s had no two-factor sign-in to reset.")
    messages.success(request, message % {"name": name})
    return redirect("matter", matter.pk)


@login_required
@require_POST
def organisation_requirement(request: HttpRequest, organisation_id: int) -> HttpResponse:
    organisation = organisations_administered(user=request.user).filter(pk=organisation_id).first()
    if organisation is None:
        raise Http404("No such organisation.")
    required = request.POST.get("require_two_factor") == "on"
    organisation_two_factor_set(organisation=organisation, required=required, by=request.user)
    if required:
        message = _("Everyone in %(name)s now signs in with a second factor.")
    else:
        message = _("In %(name)s, only admins now need a second factor.")
    messages.success(request, message % {"name": organisation.name})
    return redirect("home")
