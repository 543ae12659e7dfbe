"""The review page of a contract: the document, its passages in windows, highlights, the
redlines section and reopening a flag the check dropped."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from reviewapp.accounts.profile.selectors import reader_time_zone
from reviewapp.accounts.selectors import (
    membership_role,
)
from reviewapp.contracts.deletion import (
    contract_may_delete,
)
from reviewapp.contracts.models import Contract, Passage, PassageState
from reviewapp.contracts.selectors import contract_get_for_user
from reviewapp.reviews.acting_for.selectors import (
    contract_acting_for_panel,
)
from reviewapp.reviews.drafting import issues_for_side
from reviewapp.reviews.key_facts import derived_labels, fact_name_labels
from reviewapp.reviews.models import DraftStatus, ReviewStatus
from reviewapp.reviews.reasons import citation_labels, offline_match_labels, reason_labels
from reviewapp.reviews.reopen import ReopenRefused, passage_flag_reopen
from reviewapp.reviews.review_page import (
    PAGE_SIZE,
    PassageFilter,
    check_settled,
    flag_choices,
    highlights_for_pages,
    last_event_seq,
    review_page_build,
    review_page_window,
    text_document,
)
from reviewapp.reviews.selectors import review_for_contract

MAX_HIGHLIGHT_PAGES = 20


@login_required
def contract_detail(request: HttpRequest, contract_id: int) -> HttpResponse:
    """The review page: the document first, then one window of passages (around
    ``?passage=<index>`` when given); the page script fetches the rest as it is needed."""
    contract = _contract_or_404(request, contract_id)
    seq = last_event_seq()
    review = review_for_contract(contract=contract)
    around = _index(request.GET.get("passage"))
    page = review_page_build(
        contract=contract,
        review=review,
        seq=seq,
        time_zone=reader_time_zone(user=request.user),
        around=around,
    )
    acting_for = contract_acting_for_panel(contract=contract, user=request.user)
    context = {
        "contract": contract,
        "window": page.window,
        "passages_html": mark_safe(page.window.html),  # noqa: S308 - our own template's output
        "selected": around,
        "state_counts": [
            (state, label, page.window.counts[state]) for state, label in PassageState.choices
        ],
        "categories": page.window.categories,
        "severities": page.window.severities,
        "issues": issues_for_side(page.draft, page.issues, acting_for.sides),
        "issue_count": page.issue_count,
        "viewer": page.viewer,
        "review": review,
        "check_settled": check_settled(review),
        "draft": page.draft,
        "last_event_seq": seq,
        "labels": _labels(),
        "may_delete": not contract.matter.legal_hold
        and contract_may_delete(user=request.user, contract=contract),
        "acting_for": acting_for,
        "flag_choices": flag_choices(
            review=review,
            role=membership_role(user=request.user, matter_id=contract.matter_id),
        ),
    }
    return render(request, "contracts/contract.html", context)


@login_required
@require_POST
def passage_reopen(request: HttpRequest, contract_id: int, index: int) -> HttpResponse:
    """Reopen a flag the second-stage check dropped (lawyers and admins of the matter)."""
    contract = _contract_or_404(request, contract_id)
    passage = get_object_or_404(Passage, contract=contract, index=index)
    try:
        passage_flag_reopen(passage_id=passage.pk, user=request.user)
    except ReopenRefused as refused:
        messages.error(request, str(refused))
        return redirect(f"{reverse('contract', args=[contract.pk])}?passage={index}")
    messages.success(
        request, gettext("The flag is reopened: the passage is in the lawyers' queue.")
    )
    return redirect(f"{reverse('contract', args=[contract.pk])}?passage={index}")


@login_required
@require_GET
def contract_passages(request: HttpRequest, contract_id: int) -> JsonResponse:
    """A window of the review page's list as HTML, with cursors, the filter's total and the
    counts per state: ``?after=<index>``, ``?before=<index>`` or ``?around=<index>``, with the
    filters ``state``, ``category``, ``severity`` and ``limit``."""
    contract = _contract_or_404(request, contract_id)
    seq = last_event_seq()
    window = review_page_window(
        contract=contract,
        review=review_for_contract(contract=contract),
        seq=seq,
        time_zone=reader_time_zone(user=request.user),
        passage_filter=PassageFilter.from_query(request.GET),
        after=_index(request.GET.get("after")),
        before=_index(request.GET.get("before")),
        around=_index(request.GET.get("around")),
        limit=_limit(request.GET.get("limit")),
    )
    return JsonResponse(
        {
            "html": window.html,
            "first": window.first,
            "last": window.last,
            "hasBefore": window.has_before,
            "hasAfter": window.has_after,
            "total": window.total,
            "counts": window.counts,
        }
    )


@login_required
@require_GET
def contract_redlines(request: HttpRequest, contract_id: int) -> HttpResponse:
    """The review page's redlines section, fetched by the page once it has shown the document:
    the clauses' before and after cost more than the rest of the page together."""
    contract = _contract_or_404(request, contract_id)
    review = review_for_contract(contract=contract)
    if review is None:
        return HttpResponse("")
    request._redline_assets = True  # type: ignore[attr-defined]  # the page links them itself
    return render(request, "reviews/_redline.html", {"contract": contract, "review": review})


@login_required
@require_GET
def contract_highlights(request: HttpRequest, contract_id: int) -> JsonResponse:
    """The flagged passages on PDF pages ``?first=``..``?last=``, for the viewer to mark."""
    contract = _contract_or_404(request, contract_id)
    first = _index(request.GET.get("first")) or 1
    last = max(first, _index(request.GET.get("last")) or first)
    rows = highlights_for_pages(
        contract=contract,
        review=review_for_contract(contract=contract),
        first=first,
        last=min(last, first + MAX_HIGHLIGHT_PAGES - 1),
    )
    return JsonResponse({"flagged": rows})


@login_required
@require_GET
def contract_document_text(request: HttpRequest, contract_id: int) -> JsonResponse:
    """A Word or text document's text for the viewer, with every passage's range."""
    contract = _contract_or_404(request, contract_id)
    data = text_document(contract=contract, review=review_for_contract(contract=contract))
    return JsonResponse(data)


def _contract_or_404(request: HttpRequest, contract_id: int) -> Contract:
    contract = contract_get_for_user(user=request.user, contract_id=contract_id)
    if contract is None:
        raise Http404("No such contract.")
    return contract


def _limit(value: str | None) -> int:
    """``limit=0`` asks for the counts and the total only (after a live change)."""
    limit = _index(value)
    return PAGE_SIZE if limit is None else limit


def _index(value: str | None) -> int | None:
    """A passage index or count from the query string; anything else is ignored."""
    if value is None or not value.isdigit() or len(value) > 9:
        return None
    return int(value)


def _labels() -> dict[str, object]:
    """The page script's words, in the reader's language."""
    return {
        "states": dict(PassageState.choices),
        "reviewStatuses": dict(ReviewStatus.choices),
        "draftStatuses": dict(DraftStatus.choices),
        "reasons": reason_labels(),
        "offlineMatch": offline_match_labels(),
        "citation": citation_labels(),
        "checkedByClaude": gettext("Checked by Claude"),
        "checkedOffline": gettext("Checked by the offline engine"),
        "suggestedWording": gettext("Suggested wording"),
        "askCounterparty": gettext("Ask the counterparty"),
        "acceptedBy": gettext("Lawyer decision: accepted by %(who)s"),
        "rejectedBy": gettext("Lawyer decision: rejected by %(who)s"),
        "notThisBy": gettext("Lawyer decision: not this kind of clause, by %(who)s"),
        "released": gettext("Claim released; waiting for a lawyer"),
        "claimedBy": gettext("Claimed by %(who)s"),
        "waiting": gettext("Waiting for a lawyer"),
        "due": gettext("due %(due)s %(zone)s"),
        "escalated": gettext("Escalated: overdue since %(due)s %(zone)s"),
        "visible": gettext("%(shown)s of %(total)s passages shown"),
        "passage": gettext("Passage"),
        "risk": gettext("Risk"),
        "issue": gettext("Issue"),
        "recommendation": gettext("Recommendation"),
        "pdfFailed": gettext("The PDF could not be shown: %(error)s"),
        "notLocated": gettext("Passage %(index)s is on this page (its exact place was not found)"),
        "page": gettext("Page %(page)s"),
        "passwordFailed": gettext("The password could not be sent."),
        "redlinesFailed": gettext("The redlines could not be loaded: %(error)s"),
        "tryAgain": gettext("Try again"),
        "perpetual": gettext("Perpetual"),
        "aboutDate": gettext("about %(date)s"),
        "unsure": gettext("%(value)s (unsure)"),
        "unsureAlso": gettext("%(value)s (unsure: also %(candidate)s)"),
        "candidateAt": gettext("%(date)s, passage #%(index)s"),
        "derived": derived_labels(),
        "factNames": fact_name_labels(),
    }
