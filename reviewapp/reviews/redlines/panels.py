"""What the redline editor shows on a page: per flagged passage, a row per issue with its
redline (or the proposal a new one starts from) and the clause's before and after.

Read once per review and page render (cached on the request), so a queue page or a review
page costs a few queries per review, not per passage.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from reviewapp.contracts.models import Passage, PassageState
from reviewapp.reviews.models import Review, RuleFiring, Verification
from reviewapp.reviews.redlines.diff import Segment, redline_diff
from reviewapp.reviews.redlines.models import Redline, RedlineSource
from reviewapp.reviews.redlines.proposals import categories_of, proposal_for
from reviewapp.reviews.redlines.selectors import redlines_for_review, user_may_edit_redlines
from reviewapp.rules.services import playbook_compiled

PROPOSAL = "PROPOSAL"


@dataclass
class RedlineRow:
    category: str
    replacement: str
    original: str
    status: str  # a RedlineStatus, or PROPOSAL when nothing is saved yet
    status_label: str
    source_label: str
    redline_id: int | None = None
    accepted_by: str = ""
    diff: list[Segment] = field(default_factory=list)


@dataclass
class PassagePanel:
    review_id: int
    passage_id: int
    passage_index: int
    label: str
    can_edit: bool
    rows: list[RedlineRow]


@dataclass
class _ReviewData:
    review: Review
    can_edit: bool
    categories: dict[int, list[tuple[str, str]]]
    verifications: dict[int, Verification]
    redlines: dict[tuple[int, str], Redline]


# The review page lists at most this many clauses (saved redlines first); the rest are a
# click away in the queue, and the export carries every accepted one.
PAGE_PANELS = 20


@dataclass
class Panels:
    panels: list[PassagePanel]
    hidden: int = 0

    def __bool__(self) -> bool:
        return bool(self.panels)


def redline_panels(
    *, request: Any, user: Any, review: Review | None, passage: Passage | None = None
) -> Panels:
    """The panel of `passage` (none if no routing rule flagged it); with no passage, the review
    page's list: passages with a saved redline, then those waiting for a lawyer."""
    if review is None:
        return Panels([])
    data = _review_data(request, user, review)
    if passage is not None:
        return Panels([_panel(data, passage)] if data.categories.get(passage.pk) else [])
    saved = {passage_id for passage_id, _category in data.redlines}
    waiting = Passage.objects.filter(
        pk__in=list(data.categories),
        state__in=[PassageState.REJECTED, PassageState.NEEDS_HUMAN_REVIEW],
    ).exclude(pk__in=saved)
    chosen = [*Passage.objects.filter(pk__in=saved).order_by("index")]
    chosen += list(waiting.order_by("index")[: max(PAGE_PANELS - len(chosen), 0)])
    hidden = len(saved) + waiting.count() - len(chosen)
    return Panels([_panel(data, p) for p in chosen if p.pk in data.categories], hidden)


def _review_data(request: Any, user: Any, review: Review) -> _ReviewData:
    cache = getattr(request, "_redline_panels", None) if request is not None else None
    if cache is None:
        cache = {}
        if request is not None:
            request._redline_panels = cache
    if review.pk not in cache:
        compiled = playbook_compiled(review.playbook_version)
        firings: dict[int, list[tuple[str, str]]] = defaultdict(list)
        for passage_id, category, rule_id in RuleFiring.objects.filter(review=review).values_list(
            "passage_id", "category", "rule_id"
        ):
            firings[passage_id].append((category, rule_id))
        categories = {pk: categories_of(compiled, rows) for pk, rows in firings.items()}
        cache[review.pk] = _ReviewData(
            review=review,
            can_edit=user_may_edit_redlines(user=user, matter_id=review.contract.matter_id),
            categories={pk: rows for pk, rows in categories.items() if rows},
            verifications={v.passage_id: v for v in Verification.objects.filter(review=review)},
            redlines={
                (r.passage_id, r.category): r for r in redlines_for_review(review_id=review.pk)
            },
        )
    return cache[review.pk]


def _panel(data: _ReviewData, passage: Passage) -> PassagePanel:
    text = data.review.contract.text[passage.start : passage.end]
    rows = []
    for category, rule_id in data.categories[passage.pk]:
        redline = data.redlines.get((passage.pk, category))
        if redline is not None:
            rows.append(_saved_row(redline))
            continue
        proposal = proposal_for(
            compiled=playbook_compiled(data.review.playbook_version),
            passage=passage,
            text=text,
            category=category,
            rule_id=rule_id,
            verification=data.verifications.get(passage.pk),
        )
        rows.append(
            RedlineRow(
                category=category,
                replacement=proposal.replacement,
                original=text,
                status=PROPOSAL,
                status_label=_("Proposal, not saved"),
                source_label=str(RedlineSource(proposal.source).label),
                diff=redline_diff(text, proposal.replacement),
            )
        )
    label = passage.number or f"#{passage.index}"
    return PassagePanel(data.review.pk, passage.pk, passage.index, label, data.can_edit, rows)


def _saved_row(redline: Redline) -> RedlineRow:
    return RedlineRow(
        category=redline.category,
        replacement=redline.replacement,
        original=redline.original_text,
        status=redline.status,
        status_label=str(redline.get_status_display()),
        source_label=str(redline.get_source_display()),
        redline_id=redline.pk,
        accepted_by=redline.accepted_by.get_username() if redline.accepted_by else "",
        diff=redline_diff(redline.original_text, redline.replacement),
    )
