"""Reads for the contract review page: a window of passages with their rules, verifications
and decisions, the counts, and what the document viewer needs.

The page must stay fast for contracts of thousands of passages, so nothing here reads per
passage and nothing reads every passage's row: the page holds one window of `PAGE_SIZE`
passages (keyset on the passage index, so a window costs the same anywhere in the contract)
and the browser asks for the next window as the list scrolls, or for the window around a
passage it jumps to. What must cover the whole contract (counts per state, the categories and
severities to filter by, which passages are flagged) comes from one aggregate and one narrow
read of the review's rule firings. The viewer reads its highlights per PDF page, or the text
of a Word or text document, from their own endpoints, after the page has arrived.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.core.cache import cache
from django.db.models import Count, Max, QuerySet
from django.template.loader import render_to_string
from django.utils.translation import get_language

from reviewapp.accounts.models import Role
from reviewapp.contracts.models import Contract, Passage, PassageState
from reviewapp.realtime.models import Event
from reviewapp.reviews.models import (
    Draft,
    LabelKind,
    PassageLabel,
    Review,
    RuleFiring,
    Verification,
)
from reviewapp.reviews.reasons import CATEGORY_NOT_PRESENT
from reviewapp.rules.display_labels import category_label
from reviewapp.rules.selectors import flaggable_categories
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.engine.model import ROUTER_CONTEXT_SUFFIX, severity_rank

if TYPE_CHECKING:  # the queue sits above reviews: its items are read through the relation
    from reviewapp.queue.models import QueueItem

PDF_KIND = "pdf"
PAGE_SIZE = 40
MAX_PAGE_SIZE = 200
# The draft's issue table is folded away and capped; the exports hold every issue.
MAX_ISSUES_SHOWN = 100
FLAGGED = "FLAGGED"  # the state filter for "any rule fired"
WINDOW_CACHE_SECONDS = 300


@dataclass(frozen=True)
class PassageFilter:
    """The list's filters, as the reader chose them; blank means any."""

    state: str = ""
    category: str = ""
    severity: str = ""

    @classmethod
    def from_query(cls, query: Any) -> PassageFilter:
        state = query.get("state", "")
        if state not in {FLAGGED, *PassageState.values}:
            state = ""
        return cls(
            state=state,
            category=query.get("category", "")[:80],
            severity=query.get("severity", "")[:10],
        )


@dataclass
class FiringSummary:
    """Per passage id: the categories (routing, related) and highest routing severity."""

    categories: dict[int, list[str]] = field(default_factory=dict)
    related: dict[int, list[str]] = field(default_factory=dict)
    rule_ids: dict[int, list[str]] = field(default_factory=dict)
    severity: dict[int, str] = field(default_factory=dict)
    # Categories the second-stage check dropped (and no standing firing names).
    dropped: dict[int, list[str]] = field(default_factory=dict)
    # Lawyers' labels: categories called not this kind of clause, and those a lawyer flagged.
    not_this: dict[int, list[str]] = field(default_factory=dict)
    raised: dict[int, list[str]] = field(default_factory=dict)

    @property
    def flagged(self) -> set[int]:
        return set(self.rule_ids) | set(self.raised)

    def all_categories(self) -> list[str]:
        every = (self.categories, self.related, self.dropped)
        found = {c for ids in every for cs in ids.values() for c in cs}
        return sorted(found)

    def all_severities(self) -> list[str]:
        found = {s for s in self.severity.values() if s}
        return sorted(found, key=severity_rank)


@dataclass
class PassageWindow:
    """A run of passages in index order, with whether more match before and after it."""

    passages: list[Passage]
    has_before: bool
    has_after: bool
    total: int  # passages that match the filter, in the whole contract


@dataclass
class RenderedWindow:
    """A window of the list as the page shows it: its items' HTML, cursors and counts."""

    html: str
    first: int | None
    last: int | None
    has_before: bool
    has_after: bool
    total: int
    counts: dict[str, int]  # every state, zero included, in PassageState order
    categories: list[str]
    severities: list[str]


@dataclass
class ReviewPage:
    """Everything the review page shows on its first response, read in a bounded number of
    queries whatever the contract's size."""

    window: RenderedWindow
    issues: list[dict[str, Any]]
    issue_count: int
    draft: Draft | None
    viewer: dict[str, Any] = field(default_factory=dict)


def flag_choices(*, review: Review | None, role: str | None) -> list[tuple[str, str]]:
    """The kinds of clause a lawyer or admin of the matter may flag on the review page, with
    their labels ([] for anyone else, or before the review)."""
    if review is None or role not in (Role.LAWYER, Role.ADMIN):
        return []
    return [
        (name, category_label(name))
        for name in flaggable_categories(playbook_version=review.playbook_version)
    ]


def last_event_seq() -> int:
    """Read before the page's data, so an event racing the render is replayed, not lost."""
    return Event.objects.aggregate(seq=Max("id"))["seq"] or 0


def review_page_build(
    *,
    contract: Contract,
    review: Review | None,
    seq: int,
    time_zone: str,
    around: int | None = None,
) -> ReviewPage:
    """The first response: the window holding passage ``around`` (else the first window).
    ``seq`` is the last event's sequence number, read before anything else; ``time_zone`` the
    one due times are written in (the reader's)."""
    draft = _draft(review)
    issues = list((draft.data or {}).get("issues") or []) if draft else []
    return ReviewPage(
        window=review_page_window(
            contract=contract,
            review=review,
            seq=seq,
            time_zone=time_zone,
            passage_filter=PassageFilter(),
            around=around,
        ),
        issues=issues[:MAX_ISSUES_SHOWN],
        issue_count=len(issues),
        draft=draft,
        viewer=viewer_data(contract),
    )


def review_page_window(
    *,
    contract: Contract,
    review: Review | None,
    seq: int,
    time_zone: str,
    passage_filter: PassageFilter,
    after: int | None = None,
    before: int | None = None,
    around: int | None = None,
    limit: int = PAGE_SIZE,
) -> RenderedWindow:
    """A window of the list, rendered, as the first response holds it or as the reader
    scrolls, filters or jumps; with the counts, so a page that missed a push still shows the
    register's numbers.

    Rendered windows are cached under the last event's sequence number: every change the list
    shows (a state, a verification, a queue item, a decision, a draft's flags, a new scan) is
    stored as an event in the same transaction, so a newer event means a new key, and readers
    of an unchanged contract (a team on the same page, catch-up reads) share one rendering.
    """
    key = (
        contract.pk,
        contract.created_at.isoformat(),
        review.pk if review else None,
        get_language(),
        time_zone,
        passage_filter,
        after,
        before,
        around,
        limit,
    )

    def render() -> RenderedWindow:
        summary = firing_summary(review)
        window = passage_window(
            contract=contract,
            review=review,
            summary=summary,
            draft=_draft(review),
            passage_filter=passage_filter,
            after=after,
            before=before,
            around=around,
            limit=limit,
        )
        indexes = [p.index for p in window.passages]
        html = render_to_string(
            "contracts/_passages.html",
            {"passages": window.passages, "selected": around, "reader_time_zone": time_zone},
        )
        return RenderedWindow(
            html=html,
            first=indexes[0] if indexes else None,
            last=indexes[-1] if indexes else None,
            has_before=window.has_before,
            has_after=window.has_after,
            total=window.total,
            counts=state_counts(contract),
            categories=summary.all_categories(),
            severities=summary.all_severities(),
        )

    return _cached(key, seq, render)


def _cached(key: tuple[Any, ...], seq: int, build: Callable[[], RenderedWindow]) -> RenderedWindow:
    name = "review-page:" + hashlib.sha256(repr((seq, *key)).encode()).hexdigest()
    window = cache.get(name)  # None while Redis is away too (IGNORE_EXCEPTIONS)
    if not isinstance(window, RenderedWindow):
        window = build()
        cache.set(name, window, WINDOW_CACHE_SECONDS)
    return window


def check_settled(review: Review | None) -> list[dict[str, Any]]:
    """Passages the second-stage check settled (still CONFIRMED), with what it dropped."""
    if review is None or not review.check_version:
        return []
    rows = RuleFiring.objects.filter(
        review=review,
        dropped=True,
        passage__state=PassageState.CONFIRMED,
        passage__verification__reason=CATEGORY_NOT_PRESENT,
    ).values_list("passage__index", "category")
    found: dict[int, set[str]] = defaultdict(set)
    for index, category in rows:
        found[index].add(category)
    return [{"index": i, "categories": sorted(found[i])} for i in sorted(found)]


def state_counts(contract: Contract) -> dict[str, int]:
    counts = dict.fromkeys(PassageState.values, 0)
    rows = (
        Passage.objects.filter(contract=contract, state__isnull=False)
        .values_list("state")
        .annotate(n=Count("id"))
        .order_by()
    )
    counts.update(dict(rows))
    return counts


def firing_summary(review: Review | None) -> FiringSummary:
    """One narrow read of the review's firings: what the filters and the flag marks need."""
    summary = FiringSummary()
    if review is None:
        return summary
    routes = playbook_compiled(review.playbook_version).routes
    rows: dict[int, list[tuple[str, str, str, bool]]] = defaultdict(list)
    firings = RuleFiring.objects.filter(review=review).values_list(
        "passage_id", "rule_id", "category", "severity", "dropped"
    )
    for passage_id, rule_id, category, severity, dropped in firings:
        rows[passage_id].append((rule_id, category, severity, dropped))
    for passage_id, every in rows.items():
        fired = [row for row in every if not row[3]] or every  # all dropped: say what was named
        routing = [row for row in fired if routes(row[0])]
        categories = sorted({row[1] for row in routing})
        summary.categories[passage_id] = categories
        # Categories that only secondary rules attached: questions the verifier also answered.
        summary.related[passage_id] = sorted({row[1] for row in fired} - set(categories))
        summary.dropped[passage_id] = sorted(
            {row[1] for row in every if row[3]} - {row[1] for row in every if not row[3]}
        )
        summary.rule_ids[passage_id] = sorted({row[0] for row in every})
        summary.severity[passage_id] = min(
            (row[2] for row in routing), key=severity_rank, default=""
        )
    _lawyer_labels(review, summary)
    return summary


def _lawyer_labels(review: Review, summary: FiringSummary) -> None:
    """A false flag's category no longer stands on its passage; a lawyer's flag does."""
    rows = PassageLabel.objects.filter(review=review).values_list(
        "passage_id", "category", "kind", "raised"
    )
    for passage_id, category, kind, raised in rows:
        standing = summary.categories.setdefault(passage_id, [])
        if kind == LabelKind.NOT_THIS:
            summary.not_this.setdefault(passage_id, []).append(category)
            if category in standing:
                standing.remove(category)
        elif raised:
            summary.raised.setdefault(passage_id, []).append(category)
            if category not in standing:
                standing.append(category)
                standing.sort()


def passage_window(
    *,
    contract: Contract,
    review: Review | None,
    summary: FiringSummary,
    draft: Draft | None = None,
    passage_filter: PassageFilter | None = None,
    after: int | None = None,
    before: int | None = None,
    around: int | None = None,
    limit: int = PAGE_SIZE,
) -> PassageWindow:
    """The passages matching the filter after index ``after``, before ``before``, or around
    ``around`` (that passage first in the window if it matches, a few before it); else the
    first ones. Each carries what its list item shows."""
    matching = _filtered(contract, summary, passage_filter or PassageFilter())
    limit = max(0, min(limit, MAX_PAGE_SIZE))
    if before is not None:
        earlier = list(matching.filter(index__lt=before).order_by("-index")[: limit + 1])
        passages, has_before, has_after = earlier[:limit][::-1], len(earlier) > limit, True
    elif around is not None:
        lead = min(limit // 4, 5)
        earlier = list(matching.filter(index__lt=around).order_by("-index")[: lead + 1])
        later = list(matching.filter(index__gte=around).order_by("index")[: limit - lead + 1])
        has_before, has_after = len(earlier) > lead, len(later) > limit - lead
        passages = earlier[:lead][::-1] + later[: limit - lead]
    else:
        start = -1 if after is None else after
        later = list(matching.filter(index__gt=start).order_by("index")[: limit + 1])
        passages, has_before, has_after = later[:limit], start >= 0, len(later) > limit
    _annotate(passages, review, summary, draft)
    return PassageWindow(
        passages=passages, has_before=has_before, has_after=has_after, total=matching.count()
    )


def _filtered(
    contract: Contract, summary: FiringSummary, wanted: PassageFilter
) -> QuerySet[Passage]:
    passages = Passage.objects.filter(contract=contract)
    if wanted.state == FLAGGED:
        passages = passages.filter(pk__in=summary.flagged)
    elif wanted.state:
        passages = passages.filter(state=wanted.state)
    if wanted.category:
        ids = {
            pk
            for pk in summary.flagged
            if wanted.category in summary.categories[pk]
            or wanted.category in summary.related[pk]
            or wanted.category in summary.dropped[pk]
        }
        passages = passages.filter(pk__in=ids)
    if wanted.severity:
        ids = {pk for pk, severity in summary.severity.items() if severity == wanted.severity}
        passages = passages.filter(pk__in=ids)
    return passages


def _annotate(
    passages: list[Passage], review: Review | None, summary: FiringSummary, draft: Draft | None
) -> None:
    ids = [p.pk for p in passages]
    router = _router_flags(review, ids)
    verifications = _verifications(review, ids)
    queue_items = _queue_items(review, ids)
    model_flags = _model_flags(draft)
    for passage in passages:
        pk = passage.pk
        passage.categories = summary.categories.get(pk, [])  # type: ignore[attr-defined]
        passage.related_categories = summary.related.get(pk, [])  # type: ignore[attr-defined]
        passage.rule_ids = summary.rule_ids.get(pk, [])  # type: ignore[attr-defined]
        passage.dropped_categories = summary.dropped.get(pk, [])  # type: ignore[attr-defined]
        passage.severity = summary.severity.get(pk, "")  # type: ignore[attr-defined]
        passage.flagged = pk in summary.flagged  # type: ignore[attr-defined]
        passage.not_this = summary.not_this.get(pk, [])  # type: ignore[attr-defined]
        passage.raised = summary.raised.get(pk, [])  # type: ignore[attr-defined]
        passage.router_flags = router.get(pk, [])  # type: ignore[attr-defined]
        passage.model_flags = (  # type: ignore[attr-defined]
            model_flags.get(passage.index, []) if "model.draft" in passage.rule_ids else []  # type: ignore[attr-defined]
        )
        passage.verification_row = verifications.get(pk)  # type: ignore[attr-defined]
        passage.queue_item = queue_items.get(pk)  # type: ignore[attr-defined]


def _router_flags(review: Review | None, ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    flags: dict[int, list[dict[str, Any]]] = defaultdict(list)
    if review is None or not ids:
        return flags
    rows = RuleFiring.objects.filter(
        review=review, passage_id__in=ids, score__isnull=False, dropped=False
    ).exclude(rule_id__endswith=ROUTER_CONTEXT_SUFFIX)  # under its threshold: not shown
    for passage_id, category, score, words in rows.order_by("pk").values_list(
        "passage_id", "category", "score", "words"
    ):
        flags[passage_id].append(
            {"category": category, "percent": round((score or 0) * 100), "words": words}
        )
    return flags


def _verifications(review: Review | None, ids: list[int]) -> dict[int, Verification]:
    if review is None or not ids:
        return {}
    rows = Verification.objects.filter(review=review, passage_id__in=ids).order_by("pk")
    return {v.passage_id: v for v in rows}


def _queue_items(review: Review | None, ids: list[int]) -> dict[int, QueueItem]:
    if review is None or not ids:
        return {}
    items = review.queue_items.filter(passage_id__in=ids).select_related(  # type: ignore[attr-defined]
        "decided_by", "claimed_by"
    )
    return {item.passage_id: item for item in items.order_by("pk")}  # the latest item wins


def _draft(review: Review | None) -> Draft | None:
    return Draft.objects.filter(review=review).first() if review is not None else None


def _model_flags(draft: Draft | None) -> dict[int, list[str]]:
    titles: dict[int, list[str]] = defaultdict(list)
    for flag in ((draft.data or {}).get("model_flags") or []) if draft else []:
        titles[flag.get("passage")].append(flag.get("title", ""))
    return titles


# ---- the document viewer ---------------------------------------------------------------------


def viewer_data(contract: Contract) -> dict[str, Any]:
    """What the viewer needs before it fetches anything: the kind and the page offsets."""
    return {
        "kind": contract.kind,
        "isPdf": contract.kind == PDF_KIND,
        "pageSpans": contract.page_spans,
        "pageCount": contract.page_count,
    }


def highlights_for_pages(
    *, contract: Contract, review: Review | None, first: int, last: int
) -> list[dict[str, Any]]:
    """The flagged passages that lie (even in part) on PDF pages ``first``..``last``, with the
    text the viewer matches against each page's text layer."""
    summary = firing_summary(review)
    if not summary.flagged:
        return []
    passages = Passage.objects.filter(contract=contract, pk__in=summary.flagged)
    spans = contract.page_spans or []
    if spans and 1 <= first <= last <= len(spans):
        passages = passages.filter(start__lt=spans[last - 1][1], end__gt=spans[first - 1][0])
    else:
        passages = passages.filter(page__gte=first, page__lte=last)
    rows = passages.order_by("index").values("index", "page", "start", "end", "state", "text")
    return [dict(row) for row in rows]


def text_document(*, contract: Contract, review: Review | None) -> dict[str, Any]:
    """A Word or text document's text, every passage's range (to scroll to any of them) and
    the flagged ones' states (to colour them)."""
    flagged = firing_summary(review).flagged
    rows = Passage.objects.filter(contract=contract).order_by("index")
    spans, states = [], {}
    for pk, index, start, end, state in rows.values_list("pk", "index", "start", "end", "state"):
        spans.append([index, start, end])
        if pk in flagged:
            states[index] = state
    text = Contract.objects.values_list("text", flat=True).get(pk=contract.pk)
    return {"text": text, "spans": spans, "flagged": states}
