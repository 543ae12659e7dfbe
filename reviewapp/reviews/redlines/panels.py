"""What the redline editor shows on a page: per flagged passage, a row per issue with its
redline (or the proposal a new one starts from) and the clause's before and after.

Read once per review and page render (cached on the request), so a queue page or a review
page costs a few queries per review, not per passage.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Exists, F, OuterRef, Q, Window
from django.db.models.functions import Substr
from django.utils.translation import gettext as _

from reviewapp.contracts.models import Contract, Passage, PassageState
from reviewapp.reviews.acting_for.selectors import Sides, acting_sides_by_contract
from reviewapp.reviews.models import Review, RuleFiring, Verification
from reviewapp.reviews.redlines.diff import Segment, redline_diff
from reviewapp.reviews.redlines.labels import accepted_label, source_label, terms_note
from reviewapp.reviews.redlines.models import Redline
from reviewapp.reviews.redlines.proposals import Proposal, categories_of, proposal_for
from reviewapp.reviews.redlines.selectors import user_may_edit_redlines
from reviewapp.rules.services import playbook_compiled
from reviewapp.text.engine.party_terms import PREAMBLE_CHARS, deal_sides

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
    accepted_label: str = ""  # "accepted by <full name>"
    diff: tuple[Segment, ...] = ()
    counterparty_comment: str = ""
    terms_note: str = ""  # how a proposal's standard wording names the parties


@dataclass
class PassagePanel:
    review_id: int
    passage_id: int
    passage_index: int
    label: str
    can_edit: bool
    rows: list[RedlineRow]


# The review page lists at most this many clauses (saved redlines first); the rest are a
# click away in the queue, and the export carries every accepted one.
PAGE_PANELS = 20


@dataclass
class Panels:
    panels: list[PassagePanel]
    hidden: int = 0

    def __bool__(self) -> bool:
        return bool(self.panels)


@dataclass
class _PassageData:
    categories: list[tuple[str, str]]
    verification: Verification | None
    redlines: dict[str, Redline]
    matches: dict[str, tuple[int, int]]  # each rule's first match, in contract offsets


@dataclass
class _Cache:
    passages: dict[int, _PassageData] = field(default_factory=dict)
    can_edit: dict[int, bool] = field(default_factory=dict)
    texts: dict[int, str] = field(default_factory=dict)  # passage id -> its clause
    # contract id -> the party acted for and the counterparty, read for the contracts loaded so
    # far once a proposal names a party (most pages show none)
    sides: dict[int, Sides | None] = field(default_factory=dict)
    contract_ids: set[int] = field(default_factory=set)
    # contract id -> its opening words, read for a contract whose parties' roles tell no side
    # of the deal (甲方, 乙方), where the preamble may (甲方（买方）)
    preambles: dict[int, str] = field(default_factory=dict)


def redline_panels(
    *,
    request: Any,
    user: Any,
    review: Review | None,
    passage: Passage | None = None,
    page_items: Sequence[tuple[Passage, Review]] = (),
) -> Panels:
    """The panel of `passage` (none if no routing rule flagged it); with no passage, the review
    page's list: passages with a saved redline, then those waiting for a lawyer.

    `page_items` are the other (passage, review) pairs the page will ask for, e.g. a queue
    page's items: they are read together with the first, in three queries for the page."""
    if review is None:
        return Panels([])
    cache = _cache(request)
    if passage is not None:
        if passage.pk not in cache.passages:
            _load(cache, [(passage, review), *page_items])
        if not _flagged(cache, passage):
            return Panels([])
        return Panels([_panel(cache, _can_edit(cache, user, review, passage), review, passage)])
    return _review_list(cache, user, review)


def _review_list(cache: _Cache, user: Any, review: Review) -> Panels:
    """A fixed number of queries, whatever the contract's size and whether any clause shows."""
    candidates = (
        Passage.objects.filter(contract_id=review.contract_id)
        .annotate(
            has_redline=Exists(Redline.objects.filter(passage=OuterRef("pk"))),
            flagged=Exists(RuleFiring.objects.filter(passage=OuterRef("pk"))),
        )
        .filter(
            Q(has_redline=True)
            | Q(flagged=True, state__in=[PassageState.REJECTED, PassageState.NEEDS_HUMAN_REVIEW])
        )
        .order_by("-has_redline", "index")
    )
    chosen = list(candidates.annotate(total=Window(Count("pk"))).defer("text")[:PAGE_PANELS])
    total = chosen[0].total if chosen else 0  # type: ignore[attr-defined]
    _load(cache, [(p, review) for p in chosen], ids=candidates.values("pk")[:PAGE_PANELS])
    can_edit = _can_edit(cache, user, review, None)
    panels = [_panel(cache, can_edit, review, p) for p in chosen if _flagged(cache, p)]
    return Panels(panels, total - len(chosen))


def _cache(request: Any) -> _Cache:
    cache = getattr(request, "_redline_panels", None) if request is not None else None
    if cache is None:
        cache = _Cache()
        if request is not None:
            request._redline_panels = cache
    return cache


def _flagged(cache: _Cache, passage: Passage) -> bool:
    return bool(cache.passages[passage.pk].categories)


def _load(cache: _Cache, pairs: Sequence[tuple[Passage, Review]], ids: Any = None) -> None:
    """Rules, verifications, redlines and words of these passages, in four queries (`ids`, a
    query of their ids, keeps the count fixed even when there are none)."""
    reviews = {p.pk: r for p, r in pairs if p.pk not in cache.passages}
    if not reviews and ids is None:
        return
    if ids is None:
        ids = list(reviews)
    firings: dict[int, list[tuple[str, str]]] = defaultdict(list)
    matches: dict[int, dict[str, tuple[int, int]]] = defaultdict(dict)
    rows = RuleFiring.objects.filter(passage_id__in=ids).order_by("match_start")
    for passage_id, category, rule_id, start, end in rows.values_list(
        "passage_id", "category", "rule_id", "match_start", "match_end"
    ):
        firings[passage_id].append((category, rule_id))
        matches[passage_id].setdefault(rule_id, (start, end))
    verifications = {v.passage_id: v for v in Verification.objects.filter(passage_id__in=ids)}
    redlines: dict[int, dict[str, Redline]] = defaultdict(dict)
    saved = Redline.objects.filter(passage_id__in=ids).select_related("accepted_by", "author")
    for redline in saved:
        redlines[redline.passage_id][redline.category] = redline
    # Only the clauses' own words, not every contract's whole text.
    clause = Substr("contract__text", F("start") + 1, F("end") - F("start"))
    for passage_id, words in (
        Passage.objects.filter(pk__in=ids).annotate(clause=clause).values_list("pk", "clause")
    ):
        cache.texts[passage_id] = words or ""
    cache.contract_ids.update(r.contract_id for r in reviews.values())
    for passage_id, review in reviews.items():
        compiled = playbook_compiled(review.playbook_version)
        cache.passages[passage_id] = _PassageData(
            categories_of(compiled, firings.get(passage_id, [])),
            verifications.get(passage_id),
            redlines.get(passage_id, {}),
            matches.get(passage_id, {}),
        )


def _can_edit(cache: _Cache, user: Any, review: Review, passage: Passage | None) -> bool:
    if passage is not None and Passage.contract.is_cached(passage):
        matter_id = passage.contract.matter_id
    elif Review.contract.is_cached(review):
        matter_id = review.contract.matter_id
    else:
        matter_id = Contract.objects.values_list("matter_id", flat=True).get(pk=review.contract_id)
    if matter_id not in cache.can_edit:
        cache.can_edit[matter_id] = user_may_edit_redlines(user=user, matter_id=matter_id)
    return cache.can_edit[matter_id]


def _text(cache: _Cache, passage: Passage) -> str:
    """The clause as the contract text holds it (the offsets' text, not the normalised one)."""
    return cache.texts[passage.pk]


def _panel(cache: _Cache, can_edit: bool, review: Review, passage: Passage) -> PassagePanel:
    data = cache.passages[passage.pk]
    text = _text(cache, passage)
    rows = []
    for category, rule_id in data.categories:
        redline = data.redlines.get(category)
        if redline is not None:
            rows.append(_saved_row(redline))
            continue
        proposal, sides = _proposal(cache, review, passage, text, category, rule_id)
        rows.append(
            RedlineRow(
                category=category,
                replacement=proposal.replacement,
                original=text,
                status=PROPOSAL,
                status_label=_("Proposal, not saved"),
                source_label=source_label(
                    source=proposal.source, unchanged=proposal.replacement == text
                ),
                diff=redline_diff(text, proposal.replacement),
                terms_note=terms_note(
                    swapped=proposal.swapped, kept=proposal.kept, sides=sides is not None
                ),
            )
        )
    label = passage.number or f"#{passage.index}"
    return PassagePanel(review.pk, passage.pk, passage.index, label, can_edit, rows)


def _proposal(
    cache: _Cache, review: Review, passage: Passage, text: str, category: str, rule_id: str
) -> tuple[Proposal, Sides | None]:
    """The proposal, with the sides of its contract once its standard wording names a party."""
    data = cache.passages[passage.pk]

    def proposed(sides: Sides | None, preamble: str = "") -> Proposal:
        return proposal_for(
            compiled=playbook_compiled(review.playbook_version),
            passage=passage,
            text=text,
            category=category,
            rule_id=rule_id,
            verification=data.verification,
            match=data.matches.get(rule_id),
            sides=sides,
            preamble=preamble,
        )

    proposal = proposed(None)
    if not proposal.kept:
        return proposal, None
    if review.contract_id not in cache.sides:
        cache.contract_ids.add(review.contract_id)
        cache.sides.update(acting_sides_by_contract(cache.contract_ids - set(cache.sides)))
    sides = cache.sides[review.contract_id]
    if sides is None:
        return proposal, None
    proposal = proposed(sides)
    if proposal.kept:
        proposal = proposed(sides, _preamble(cache, review.contract_id))
    return proposal, sides


def _preamble(cache: _Cache, contract_id: int) -> str:
    """The opening words of the contract, read with those of every contract loaded so far whose
    parties' roles tell no side."""
    if contract_id not in cache.preambles:
        wanted = {contract_id} | {
            pk
            for pk in cache.contract_ids - set(cache.preambles)
            if (sides := cache.sides.get(pk)) is not None
            and len(deal_sides(sides.client, sides.counterparty)) < 2
        }
        opening = Substr("text", 1, PREAMBLE_CHARS)
        rows = Contract.objects.filter(pk__in=wanted).annotate(opening=opening)
        cache.preambles.update(rows.values_list("pk", "opening"))
    return cache.preambles.get(contract_id, "")


def _saved_row(redline: Redline) -> RedlineRow:
    return RedlineRow(
        category=redline.category,
        replacement=redline.replacement,
        original=redline.original_text,
        status=redline.status,
        status_label=str(redline.get_status_display()),
        source_label=source_label(
            source=redline.source,
            unchanged=redline.replacement == redline.original_text,
            status=redline.status,
            author=redline.author,
        ),
        redline_id=redline.pk,
        accepted_label=accepted_label(redline.accepted_by),
        diff=redline_diff(redline.original_text, redline.replacement),
        counterparty_comment=redline.counterparty_comment,
    )
