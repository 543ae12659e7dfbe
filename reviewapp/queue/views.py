"""The lawyers' queue page: claim and decide, with plain forms (the page also updates live)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from reviewapp.queue.models import QueueItem
from reviewapp.queue.selectors import queue_item_context, queue_items_for_user
from reviewapp.queue.services import QueueConflict, queue_item_claim, queue_item_decide
from reviewapp.reviews.states import TransitionNotAllowed


@login_required
def queue_page(request: HttpRequest) -> HttpResponse:
    items = [queue_item_context(item) for item in queue_items_for_user(user=request.user)]
    return render(request, "queue/queue.html", {"entries": items})


@login_required
@require_POST
def queue_claim(request: HttpRequest, item_id: int) -> HttpResponse:
    try:
        queue_item_claim(item_id=item_id, user=request.user)
    except (QueueConflict, PermissionDenied, QueueItem.DoesNotExist) as refused:
        messages.error(request, str(refused) or "You cannot claim this item.")
    return redirect(f"/queue/#item-{item_id}")


@login_required
@require_POST
def queue_decide(request: HttpRequest, item_id: int) -> HttpResponse:
    try:
        queue_item_decide(
            item_id=item_id,
            user=request.user,
            decision=request.POST.get("decision", ""),
            note=request.POST.get("note", ""),
        )
    except (QueueConflict, PermissionDenied, QueueItem.DoesNotExist) as refused:
        messages.error(request, str(refused) or "You cannot decide this item.")
    except TransitionNotAllowed as refused:  # e.g. overriding a rejection without a note
        messages.error(request, str(refused))
    else:
        messages.success(request, "Decision recorded.")
    return redirect("/queue/")
