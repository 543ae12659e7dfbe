"""The lawyers' queue page: claim, decide, comment, with plain forms (the page also updates live).

Errors about one item are shown inside that item (a message tagged ``item-<id>``).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from reviewapp.queue.models import QueueItem
from reviewapp.queue.selectors import (
    queue_item_context,
    queue_item_for_user,
    queue_items_decided_by,
    queue_items_for_user,
    queue_items_with_playbooks,
)
from reviewapp.queue.services import (
    QueueConflict,
    queue_comment_add,
    queue_item_claim,
    queue_item_decide,
    queue_item_note_edit,
)
from reviewapp.reviews.states import TransitionNotAllowed

REFUSED = (QueueConflict, PermissionDenied, QueueItem.DoesNotExist, TransitionNotAllowed)
DRAFTS = "queue_comment_drafts"


QUEUE_PAGE_SIZE = 50


@login_required
@require_GET
def queue_page(request: HttpRequest) -> HttpResponse:
    """The most urgent items in full, QUEUE_PAGE_SIZE at a time (``?page=``); ``?item=`` opens
    the page that holds that item, so a claim or a comment brings the lawyer back to it."""
    page_messages, item_messages = _split_messages(request)
    drafts = request.session.pop(DRAFTS, {})
    items = queue_items_for_user(user=request.user)
    order = list(items.values_list("pk", flat=True))
    pages = max(1, -(-len(order) // QUEUE_PAGE_SIZE))
    page = _page_number(request, order, pages)
    shown = order[(page - 1) * QUEUE_PAGE_SIZE : page * QUEUE_PAGE_SIZE]
    page_items = queue_items_with_playbooks(list(items.filter(pk__in=shown)))
    entries = [queue_item_context(item) for item in page_items]
    for entry in entries:
        entry["messages"] = item_messages.get(entry["item"].pk, [])
        entry["draft"] = drafts.get(str(entry["item"].pk), "")
    context = {
        "entries": entries,
        "total": len(order),
        "page": page,
        "pages": pages,
        "first_shown": (page - 1) * QUEUE_PAGE_SIZE + 1,
        "last_shown": (page - 1) * QUEUE_PAGE_SIZE + len(shown),
        "page_messages": page_messages,
        "decided": [
            {"item": item, "messages": item_messages.get(item.pk, [])}
            for item in queue_items_decided_by(user=request.user)
        ],
    }
    return render(request, "queue/queue.html", context)


@login_required
@require_GET
def queue_item_fragment(request: HttpRequest, item_id: int) -> HttpResponse:
    """One item's HTML, for the page's live updates; 404 once it is decided or not yours."""
    item = queue_item_for_user(user=request.user, item_id=item_id)
    if item is None:
        raise Http404
    return render(request, "queue/_item.html", {"entry": queue_item_context(item)})


@login_required
@require_POST
def queue_claim(request: HttpRequest, item_id: int) -> HttpResponse:
    try:
        queue_item_claim(item_id=item_id, user=request.user)
    except REFUSED as refused:
        _item_error(request, item_id, refused, _("You cannot claim this item."))
    return redirect(f"/queue/?item={item_id}#item-{item_id}")


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
    except REFUSED as refused:  # e.g. overriding a rejection without a justification
        _item_error(request, item_id, refused, _("You cannot decide this item."))
        return redirect(f"/queue/?item={item_id}#item-{item_id}")
    messages.success(request, _("Decision recorded."))
    return redirect("/queue/")


@login_required
@require_POST
def queue_note(request: HttpRequest, item_id: int) -> HttpResponse:
    try:
        queue_item_note_edit(item_id=item_id, user=request.user, note=request.POST.get("note", ""))
    except REFUSED as refused:
        _item_error(request, item_id, refused, _("You cannot change this note."))
    else:
        messages.success(request, _("Note changed."))
    return redirect(f"/queue/#decided-{item_id}")


@login_required
@require_POST
def queue_comment(request: HttpRequest, item_id: int) -> HttpResponse:
    body = request.POST.get("body", "")
    try:
        item = QueueItem.objects.get(pk=item_id)
        queue_comment_add(item=item, author=request.user, body=body)
    except REFUSED as refused:
        _item_error(request, item_id, refused, _("You cannot comment on this item."))
        request.session[DRAFTS] = {str(item_id): body}  # keep what they wrote
    return redirect(f"/queue/?item={item_id}#item-{item_id}")


def _page_number(request: HttpRequest, order: list[int], pages: int) -> int:
    item = request.GET.get("item", "")
    if item.isdigit() and int(item) in order:
        return order.index(int(item)) // QUEUE_PAGE_SIZE + 1
    page = request.GET.get("page", "")
    return min(int(page), pages) if page.isdigit() and int(page) >= 1 else 1


def _item_error(request: HttpRequest, item_id: int, error: Exception, fallback: str) -> None:
    messages.error(request, str(error) or fallback, extra_tags=f"item-{item_id}")


def _split_messages(request: HttpRequest) -> tuple[list[object], dict[int, list[object]]]:
    page: list[object] = []
    per_item: dict[int, list[object]] = {}
    for message in messages.get_messages(request):
        tag = next((t for t in (message.extra_tags or "").split() if t.startswith("item-")), None)
        if tag is None:
            page.append(message)
        else:
            per_item.setdefault(int(tag.removeprefix("item-")), []).append(message)
    return page, per_item
