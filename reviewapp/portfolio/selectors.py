"""The portfolio grid of a matter: a row per contract, read in a fixed number of queries.

Whatever the number of contracts, the grid costs six queries: the contracts with their
reviews, the drafts' key facts, one aggregate of rule firings per contract and category
(worst state, worst severity, first passage of the worst state, passages), two aggregates of
open queue items and the latest re-run of each review. Nothing is read per row.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import (
    BigIntegerField,
    Case,
    Count,
    ExpressionWrapper,
    F,
    IntegerField,
    Max,
    Min,
    Value,
    When,
)
from django.urls import reverse
from django.utils.translation import gettext as _

from reviewapp.contracts.models import Contract
from reviewapp.portfolio.ranks import SEVERITY_RANK, STATE_RANK, worse_severity
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.reviews.key_facts import KeyFact, facts_of
from reviewapp.reviews.models import Draft, Review, ReviewSnapshot, RuleFiring

# The facts a due-diligence grid opens with (CUAD category names), in this order; facts of
# other names follow, alphabetically.
FACT_COLUMNS = (
    "Parties",
    "Agreement Date",
    "Effective Date",
    "Expiration Date",
    "Renewal Term",
    "Notice Period To Terminate Renewal",
    "Governing Law",
)
_INDEX_SPAN = 10_000_000  # passage indexes stay below it: rank * span + index sorts by both
OPEN_STATUSES = (ItemStatus.OPEN, ItemStatus.CLAIMED)


@dataclass(frozen=True)
class Grid:
    facts: list[str]
    categories: list[str]
    rows: list[dict[str, Any]]


def passage_url(contract_id: int, passage_index: int | None) -> str:
    """The review page opened on one passage (the page scrolls to ``#passage-<index>``)."""
    url = reverse("contract", args=[contract_id])
    return url if passage_index is None else f"{url}#passage-{passage_index}"


def portfolio_grid(*, matter_id: int, contract_ids: Sequence[int] | None = None) -> Grid:
    """The grid of a matter (or of some of its contracts, for rows that changed live).

    The caller has checked that the user is a member of the matter.
    """
    contracts = _contracts(matter_id, contract_ids)
    reviews = [c.review for c in contracts if _review_of(c) is not None]
    facts = _facts(reviews)
    flags = _flags(matter_id, contract_ids)
    items, items_total = _open_items(matter_id, contract_ids)
    reruns = _latest_reruns(matter_id, contract_ids)
    rows = [
        _row(c, facts.get(c.pk, {}), flags.get(c.pk, {}), items, items_total, reruns)
        for c in contracts
    ]
    fact_names = set().union(*(row_facts.keys() for row_facts in facts.values()))
    categories = sorted({category for per in flags.values() for category in per})
    return Grid(facts=_fact_columns(fact_names), categories=categories, rows=rows)


def _contracts(matter_id: int, contract_ids: Sequence[int] | None) -> list[Contract]:
    contracts = (
        Contract.objects.filter(matter_id=matter_id)
        .select_related("review__playbook_version__playbook")
        .defer("text", "page_spans", "timings_ms")
        .order_by("original_name", "id")
    )
    if contract_ids is not None:
        contracts = contracts.filter(pk__in=list(contract_ids))
    return list(contracts)


def _review_of(contract: Contract) -> Review | None:
    try:
        return contract.review
    except Review.DoesNotExist:
        return None


def _facts(reviews: Iterable[Review]) -> dict[int, dict[str, KeyFact]]:
    by_review = {review.pk: review for review in reviews}
    drafts = Draft.objects.filter(review_id__in=list(by_review)).values_list(
        "review_id", "data__key_facts"
    )
    facts = {}
    for review_id, key_facts in drafts:
        review = by_review[review_id]
        review.draft = Draft(review=review, data={"key_facts": key_facts or {}})
        facts[review.contract_id] = facts_of(review)
    return facts


def _rank(field: str, order: Sequence[str]) -> Case:
    whens = [When(**{field: name}, then=Value(rank)) for rank, name in enumerate(order)]
    return Case(*whens, default=Value(len(order)), output_field=IntegerField())


def _flags(matter_id: int, contract_ids: Sequence[int] | None) -> dict[int, dict[str, Any]]:
    """{contract id: {category: cell}} in one aggregate over the matter's firings."""
    firings = RuleFiring.objects.filter(review__contract__matter_id=matter_id)
    if contract_ids is not None:
        firings = firings.filter(review__contract_id__in=list(contract_ids))
    worst = ExpressionWrapper(
        _rank("passage_state", STATE_RANK) * _INDEX_SPAN + F("passage__index"),
        output_field=BigIntegerField(),
    )
    rows = (
        firings.values("review__contract_id", "category")
        .annotate(
            worst=Min(worst),
            severity=Min(_rank("severity", SEVERITY_RANK)),
            passages=Count("passage_id", distinct=True),
        )
        .order_by()
    )
    flags: dict[int, dict[str, Any]] = defaultdict(dict)
    for row in rows:
        state_rank, passage_index = divmod(row["worst"], _INDEX_SPAN)
        contract_id = row["review__contract_id"]
        flags[contract_id][row["category"]] = {
            "found": True,
            "state": STATE_RANK[state_rank] if state_rank < len(STATE_RANK) else None,
            "severity": SEVERITY_RANK[row["severity"]]
            if row["severity"] < len(SEVERITY_RANK)
            else None,
            "passages": row["passages"],
            "passage_index": passage_index,
            "url": passage_url(contract_id, passage_index),
        }
    return flags


def _open_items(
    matter_id: int, contract_ids: Sequence[int] | None
) -> tuple[dict[tuple[int, str], int], dict[int, int]]:
    """Open (or claimed) queue items per contract and category, and per contract."""
    items = QueueItem.objects.filter(matter_id=matter_id, status__in=OPEN_STATUSES)
    if contract_ids is not None:
        items = items.filter(review__contract_id__in=list(contract_ids))
    by_category = (
        items.values("review__contract_id", "passage__firings__category")
        .annotate(n=Count("id", distinct=True))
        .order_by()
    )
    totals = items.values("review__contract_id").annotate(n=Count("id")).order_by()
    return (
        {
            (row["review__contract_id"], row["passage__firings__category"]): row["n"]
            for row in by_category
        },
        {row["review__contract_id"]: row["n"] for row in totals},
    )


def _latest_reruns(matter_id: int, contract_ids: Sequence[int] | None) -> dict[int, int]:
    snapshots = ReviewSnapshot.objects.filter(
        review__contract__matter_id=matter_id, rerun_playbook_label__gt=""
    )
    if contract_ids is not None:
        snapshots = snapshots.filter(review__contract_id__in=list(contract_ids))
    rows = snapshots.values("review__contract_id").annotate(last=Max("id")).order_by()
    return {row["review__contract_id"]: row["last"] for row in rows}


def _fact_columns(names: set[str]) -> list[str]:
    return [*FACT_COLUMNS, *sorted(names - set(FACT_COLUMNS))]


def _fact_cell(contract_id: int, fact: KeyFact) -> dict[str, Any]:
    value = fact.value
    sortable = value if isinstance(value, (str, int, float)) and value != "" else fact.display
    return {
        "display": fact.display,
        "value": value,
        "sort": sortable,
        "passage_index": fact.passage_index,
        "url": passage_url(contract_id, fact.passage_index),
    }


def _row(
    contract: Contract,
    facts: dict[str, KeyFact],
    flags: dict[str, Any],
    items: dict[tuple[int, str], int],
    items_total: dict[int, int],
    reruns: dict[int, int],
) -> dict[str, Any]:
    review = _review_of(contract)
    for category, cell in flags.items():
        cell["open_items"] = items.get((contract.pk, category), 0)
    rerun = reruns.get(contract.pk)
    return {
        "contract_id": contract.pk,
        "name": contract.original_name,
        "url": passage_url(contract.pk, None),
        "status": contract.status,
        "status_label": contract.get_status_display(),
        "review_status": review.status if review else None,
        "review_status_label": review.get_status_display() if review else None,
        "playbook_version": review.playbook_version.label if review else None,
        "open_items": items_total.get(contract.pk, 0),
        "comparison_url": reverse("portfolio-comparison", args=[contract.pk, rerun])
        if rerun
        else None,
        "facts": {name: _fact_cell(contract.pk, fact) for name, fact in facts.items()},
        "categories": flags,
    }


@dataclass(frozen=True)
class Column:
    key: str  # "status", "fact:<name>" or "category:<name>"
    label: str
    kind: str  # "field", "fact" or "category"


def grid_columns(grid: Grid) -> list[Column]:
    fixed = [
        Column("status", _("Document"), "field"),
        Column("review_status", _("Review"), "field"),
        Column("playbook_version", _("Playbook"), "field"),
        Column("open_items", _("Open items"), "field"),
    ]
    facts = [Column(f"fact:{name}", name, "fact") for name in grid.facts]
    categories = [Column(f"category:{name}", name, "category") for name in grid.categories]
    return [*fixed, *facts, *categories]


@dataclass(frozen=True)
class IssueRow:
    contract_id: int
    contract_name: str
    passage_index: int
    number: str
    heading: str
    category: str
    severity: str
    state: str
    rule_ids: list[str]
    open_item: bool


def grid_issues(*, matter_id: int) -> list[IssueRow]:
    """One row per contract, passage and category that a rule (or the router) raised."""
    firings = (
        RuleFiring.objects.filter(review__contract__matter_id=matter_id)
        .values_list(
            "review__contract_id",
            "review__contract__original_name",
            "passage__index",
            "passage__number",
            "passage__heading",
            "category",
            "rule_id",
            "severity",
            "passage_state",
            "passage_id",
        )
        .order_by("review__contract__original_name", "review__contract_id", "passage__index")
    )
    open_passages = set(
        QueueItem.objects.filter(matter_id=matter_id, status__in=OPEN_STATUSES).values_list(
            "passage_id", flat=True
        )
    )
    grouped: dict[tuple[int, int, str], dict[str, Any]] = {}
    for cid, name, index, number, heading, category, rule_id, severity, state, pid in firings:
        row = grouped.setdefault(
            (cid, index, category),
            {
                "contract_id": cid,
                "contract_name": name,
                "passage_index": index,
                "number": number,
                "heading": heading,
                "category": category,
                "severity": severity,
                "state": state,
                "rule_ids": [],
                "open_item": pid in open_passages,
            },
        )
        row["severity"] = worse_severity(row["severity"], severity)
        row["rule_ids"].append(rule_id)
    return [IssueRow(**row) for row in grouped.values()]
