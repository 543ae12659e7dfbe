"""Pages: the matter list and a matter's page (its contracts, uploads and bulk intake)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from reviewapp.accounts.models import Role
from reviewapp.accounts.selectors import (
    matter_get_for_user,
    matter_list_for_user,
    matter_members,
    organisations_administered,
)
from reviewapp.contracts.intake.services import model_batch_available
from reviewapp.contracts.matter_page import matter_batches, matter_rows_context
from reviewapp.reviews.acting_for.selectors import (
    matter_acting_for_panel,
)


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
    manages = organisations_administered(user=request.user).filter(pk=matter.organisation_id)
    context = {
        **matter_rows_context(user=request.user, matter=matter),
        "members": matter_members(matter=matter) if manages.exists() else None,
        "roles": Role.choices,
        "max_upload_mb": settings.UPLOAD_MAX_BYTES // (1024 * 1024),
        "max_upload_bytes": settings.UPLOAD_MAX_BYTES,
        "max_zip_mb": settings.INTAKE_MAX_ZIP_BYTES // (1024 * 1024),
        "max_zip_bytes": settings.INTAKE_MAX_ZIP_BYTES,
        "model_batch_available": model_batch_available(),
        "acting_for": matter_acting_for_panel(matter=matter, user=request.user),
    }
    return render(request, "contracts/matter.html", context)


@login_required
def matter_rows(request: HttpRequest, matter_id: int) -> HttpResponse:
    """The contract table's rows, for the page's live refresh (the same words as a reload)."""
    matter = matter_get_for_user(user=request.user, matter_id=matter_id)
    if matter is None:
        raise Http404("No such matter.")
    context = matter_rows_context(user=request.user, matter=matter)
    return render(request, "contracts/_contract_rows.html", context)


@login_required
def matter_batches_panel(request: HttpRequest, matter_id: int) -> HttpResponse:
    """The bulk uploads' progress panel, for the page's live refresh."""
    matter = matter_get_for_user(user=request.user, matter_id=matter_id)
    if matter is None:
        raise Http404("No such matter.")
    context = {"batches": matter_batches(matter=matter)}
    return render(request, "contracts/_intake_batches.html", context)
