"""The lawyers' queue page: filter, claim, decide (one item or a selection), undo, comment,
with plain forms (the page also updates live). Every action returns to the same filtered view.

Errors about one item are shown inside that item (a message tagged ``item-<id>``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from reviewapp.contracts.models import Passage
from reviewapp.contracts.selectors import contract_get_for_user
from reviewapp.queue.context import (
    queue_item_context,
    queue_items_context,
    queue_items_with_playbooks,
)
from reviewapp.queue.decisions import (
    queue_decision_preview,
    queue_item_answer,
    queue_item_release,
    queue_item_undo,
    queue_items_claim,
    queue_items_decide,
    undo_deadline,
)
from reviewapp.queue.flags import passage_flag_raise
from reviewapp.queue.models import Decision, ItemStatus, QueueItem
from reviewapp.queue.selectors import (
    QueueFilters,
    admin_matter_ids,
    may_release,
    queue_facets,
    queue_items_decided_by,
    queue_items_filtered,
    queue_items_page,
    queue_waiting_summary,
)
from reviewapp.queue.services import (
    QueueConflict,
    queue_comment_add,
    queue_item_claim,
    queue_item_decide,
    queue_item_note_edit,
)
from reviewapp.reviews.models import Review
from reviewapp.reviews.states import TransitionNotAllowed

REFUSED = (QueueConflict, PermissionDenied, QueueItem.DoesNotExist, TransitionNotAllowed)
DRAFTS = "queue_comment_drafts"
QUEUE_PAGE_SIZE = 25


@login_required
@require_GET
def queue_page(request: HttpRequest) -> HttpResponse:
    """The most urgent items of the filtered view in full, QUEUE_PAGE_SIZE at a time
    (``?page=``); ``?item=`` opens the page that holds that item, so a claim or a comment
    brings the lawyer back to it."""
    filters = QueueFilters.from_query(request.GET)
    page_messages, item_messages = _split_messages(request)
    drafts = request.session.pop(DRAFTS, {})
    items = queue_items_filtered(user=request.user, filters=filters)
    total = items.count()
    pages = max(1, -(-total // QUEUE_PAGE_SIZE))
    page = _page_number(request, items, pages)
    offset = (page - 1) * QUEUE_PAGE_SIZE
    page_items = queue_items_with_playbooks(queue_items_page(items, offset, QUEUE_PAGE_SIZE))
    entries = queue_items_context(page_items)
    admin_of = admin_matter_ids(user=request.user)
    for entry in entries:
        entry["may_release"] = may_release(entry["item"], request.user, admin_of)
        entry["messages"] = item_messages.get(entry["item"].pk, [])
        entry["draft"] = drafts.get(str(entry["item"].pk), "")
    context = {
        "filters": filters,
        "query": filters.query_string(),
        "facets": queue_facets(user=request.user, filters=filters),
        "entries": entries,
        "total": total,
        "page": page,
        "pages": pages,
        "first_shown": offset + 1,
        "last_shown": offset + len(page_items),
        "page_messages": page_messages,
        "waiting": queue_waiting_summary(user=request.user),
        "decided": _decided(request, item_messages),
        "undo_window_s": settings.QUEUE_UNDO_WINDOW_S,
    }
    return render(request, "queue/queue.html", context)


def _decided(request: HttpRequest, item_messages: dict[int, list[object]]) -> list[dict]:
    now = timezone.now()
    decided = []
    for item in queue_items_decided_by(user=request.user):
        deadline = undo_deadline(item)
        decided.append(
            {
                "item": item,
                "messages": item_messages.get(item.pk, []),
                "undo_until": deadline if deadline and deadline > now else None,
            }
        )
    return decided


@login_required
@require_GET
def queue_counts(request: HttpRequest) -> JsonResponse:
    """The filter bar's live counts for the view in the query string."""
    filters = QueueFilters.from_query(request.GET)
    total = queue_items_filtered(user=request.user, filters=filters).count()
    return JsonResponse({"total": total, **queue_facets(user=request.user, filters=filters)})


@login_required
@require_GET
def queue_item_fragment(request: HttpRequest, item_id: int) -> HttpResponse:
    """One item's HTML, for the page's live updates; 404 once it is decided, not yours, or
    outside the filters of the page asking (its query string)."""
    filters = QueueFilters.from_query(request.GET)
    item = queue_items_filtered(user=request.user, filters=filters).filter(pk=item_id).first()
    if item is None:
        raise Http404
    entry = queue_item_context(item)
    entry["may_release"] = may_release(item, request.user, admin_matter_ids(user=request.user))
    context = {"entry": entry, "query": filters.query_string()}
    return render(request, "queue/_item.html", context)


@login_required
@require_POST
def queue_claim(request: HttpRequest, item_id: int) -> HttpResponse:
    try:
        queue_item_claim(item_id=item_id, user=request.user)
    except REFUSED as refused:
        _item_error(request, item_id, refused, _("You cannot claim this item."))
    return _back(request, item_id)


@login_required
@require_POST
def queue_release(request: HttpRequest, item_id: int) -> HttpResponse:
    try:
        queue_item_release(item_id=item_id, user=request.user)
    except REFUSED as refused:
        _item_error(request, item_id, refused, _("You cannot release this claim."))
    else:
        messages.success(request, _("Claim released: the item is open for the matter's lawyers."))
    return _back(request, item_id)


@login_required
@require_POST
def queue_decide(request: HttpRequest, item_id: int) -> HttpResponse:
    """One click decides every open category; ``decision=answers`` records the per-category
    answers (``answer:<category>``), and the item stays claimed until all are answered."""
    decision = request.POST.get("decision", "")
    note = request.POST.get("note", "")
    try:
        if decision == ANSWERS:
            item = queue_item_answer(
                item_id=item_id, user=request.user, decisions=_answers(request), note=note
            )
        else:
            item = queue_item_decide(
                item_id=item_id, user=request.user, decision=decision, note=note
            )
    except REFUSED as refused:  # e.g. overriding a rejection without a justification
        _item_error(request, item_id, refused, _("You cannot decide this item."))
        return _back(request, item_id)
    if item.status != ItemStatus.DONE:
        messages.success(
            request, _("Answers recorded; answer the other categories to decide the item.")
        )
        return _back(request, item_id)
    messages.success(request, _("Decision recorded. You can undo it for a short while below."))
    return _back(request)


ANSWERS = "answers"


def _answers(request: HttpRequest) -> dict[str, str]:
    answers = {}
    for key in request.POST:
        value = request.POST.get(key, "")
        if key.startswith("answer:") and value:
            answers[key.removeprefix("answer:")] = value
    return answers


@login_required
@require_POST
def queue_bulk(request: HttpRequest) -> HttpResponse:
    """Claim or decide the selected items. A decision first shows what it will change and
    asks for a confirmation (``confirm=1``), then applies to all of them or none."""
    action = request.POST.get("action", "")
    ids = [int(pk) for pk in request.POST.getlist("item") if pk.isdigit()]
    note = request.POST.get("note", "")
    try:
        if action == "claim":
            won = queue_items_claim(item_ids=ids, user=request.user)
            _claimed_message(request, len(won), len(set(ids)))
            return _back(request)
        if action not in Decision.values:
            raise QueueConflict(_("Choose what to do with the selected items."))
        if request.POST.get("confirm") != "1":
            preview = queue_decision_preview(item_ids=ids, user=request.user, decision=action)
            return _confirm_page(request, action, ids, note, preview)
        result = queue_items_decide(item_ids=ids, user=request.user, decision=action, note=note)
    except REFUSED as refused:
        messages.error(request, str(refused) or _("You cannot decide these items."))
        return _back(request)
    messages.success(request, _decided_message(len(result.items), result.passages_changed))
    return _back(request)


def _confirm_page(
    request: HttpRequest, action: str, ids: list[int], note: str, preview: Any
) -> HttpResponse:
    context = {
        "action": action,
        "label": Decision(action).label,
        "ids": ids,
        "note": note,
        "preview": preview,
        "query": _query_back(request),
        "needs_note": preview.overrides > 0 and not note.strip(),
    }
    return render(request, "queue/confirm.html", context)


def _claimed_message(request: HttpRequest, won: int, asked: int) -> None:
    text = ngettext("You claimed %(n)d item.", "You claimed %(n)d items.", won) % {"n": won}
    if won < asked:
        text += " " + _("The others were already claimed or decided.")
    messages.success(request, text)


def _decided_message(items: int, changed: int) -> str:
    return ngettext(
        "%(n)d item decided; %(changed)d passage changed state.",
        "%(n)d items decided; %(changed)d passages changed state.",
        items,
    ) % {"n": items, "changed": changed}


@login_required
@require_POST
def queue_undo(request: HttpRequest, item_id: int) -> HttpResponse:
    try:
        queue_item_undo(item_id=item_id, user=request.user)
    except REFUSED as refused:
        _item_error(request, item_id, refused, _("You cannot undo this decision."))
        return redirect(f"/queue/?{_query_back(request)}#decided-{item_id}")
    messages.success(request, _("Decision undone: the item is back in your queue, claimed by you."))
    return _back(request, item_id)


@login_required
@require_POST
def queue_note(request: HttpRequest, item_id: int) -> HttpResponse:
    try:
        queue_item_note_edit(item_id=item_id, user=request.user, note=request.POST.get("note", ""))
    except REFUSED as refused:
        _item_error(request, item_id, refused, _("You cannot change this note."))
    else:
        messages.success(request, _("Note changed."))
    return redirect(f"/queue/?{_query_back(request)}#decided-{item_id}")


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
    return _back(request, item_id)


@login_required
@require_POST
def passage_flag(request: HttpRequest, contract_id: int, index: int) -> HttpResponse:
    """ "Flag this clause" on the review page: the passage goes to the lawyer's own queue."""
    contract = contract_get_for_user(user=request.user, contract_id=contract_id)
    if contract is None:
        raise Http404("No such contract.")
    passage = get_object_or_404(Passage, contract=contract, index=index)
    back = f"{reverse('contract', args=[contract.pk])}?passage={index}"
    try:
        item = passage_flag_raise(
            passage_id=passage.pk,
            user=request.user,
            category=request.POST.get("category", ""),
            note=request.POST.get("note", ""),
        )
    except (*REFUSED, Review.DoesNotExist) as refused:
        messages.error(request, str(refused) or _("You cannot flag this passage."))
        return redirect(back)
    messages.success(
        request,
        _("Flagged: the passage is in your queue, claimed by you (item %(id)d).") % {"id": item.pk},
    )
    return redirect(back)


def _query_back(request: HttpRequest) -> str:
    """The filtered view the form was posted from (its filters, re-read and cleaned)."""
    return QueueFilters.from_query(QueryDict(request.POST.get("next", ""))).query_string()


def _back(request: HttpRequest, item_id: int | None = None) -> HttpResponse:
    query = _query_back(request)
    if item_id is None:
        return redirect(f"/queue/?{query}" if query else "/queue/")
    joined = f"{query}&" if query else ""
    return redirect(f"/queue/?{joined}item={item_id}#item-{item_id}")


def _page_number(request: HttpRequest, items: Any, pages: int) -> int:
    item = request.GET.get("item", "")
    if item.isdigit():
        order = list(items.values_list("pk", flat=True))
        if int(item) in order:
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
