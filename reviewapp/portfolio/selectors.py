"""The portfolio grid of a matter: a row per contract, read in a fixed number of queries.

Whatever the number of contracts, the grid costs five queries: the contracts with their
reviews, the drafts' key facts, one aggregate of rule firings per contract and category
(worst state, worst severity, first passage of the worst state, passages, open queue items),
open queue items per contract and the latest re-run of each review. Nothing is read per row.
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
    Q,
    Value,
    When,
)
from django.urls import reverse
from django.utils.translation import gettext as _

from reviewapp.contracts.models import Contract, DocumentStatus
from reviewapp.portfolio.ranks import SEVERITY_RANK, STATE_RANK, worse_severity
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.reviews.key_facts import date_value_shown, fact_shown, facts_from_data
from reviewapp.reviews.models import Draft, ReviewSnapshot, ReviewStatus, RuleFiring
from reviewapp.rules.display_labels import category_label, severity_label
from reviewapp.text.facts.dates import as_date
from reviewapp.text.facts.model import DATE_FACTS, Fact

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


_PLACEHOLDER = 987654321


def contract_url_template() -> str:
    """The review page's URL with ``{}`` for the contract id: one `reverse` per grid, not one
    per cell (thousands of cells)."""
    return reverse("contract", args=[_PLACEHOLDER]).replace(str(_PLACEHOLDER), "{}")


def passage_url(contract_id: int, passage_index: int | None, template: str = "") -> str:
    """The review page opened on one passage (the page scrolls to ``#passage-<index>``)."""
    url = (template or contract_url_template()).format(contract_id)
    return url if passage_index is None else f"{url}#passage-{passage_index}"


def portfolio_grid(*, matter_id: int, contract_ids: Sequence[int] | None = None) -> Grid:
    """The grid of a matter (or of some of its contracts, for rows that changed live).

    The caller has checked that the user is a member of the matter.
    """
    template = contract_url_template()
    contracts = _contracts(matter_id, contract_ids)
    facts = _facts(contracts)
    flags = _flags(matter_id, contract_ids)
    items_total = _open_items(matter_id, contract_ids)
    reruns = _latest_reruns(matter_id, contract_ids)
    context = _RowContext(items_total, reruns, _Labels(), template)
    rows = [_row(c, facts.get(c["id"], {}), flags.get(c["id"], {}), context) for c in contracts]
    fact_names = set().union(*(row_facts.keys() for row_facts in facts.values()))
    categories = sorted({category for per in flags.values() for category in per})
    return Grid(facts=_fact_columns(fact_names), categories=categories, rows=rows)


def _contracts(matter_id: int, contract_ids: Sequence[int] | None) -> list[dict[str, Any]]:
    """Plain values: a model row per contract would carry its playbook's whole source along."""
    contracts = (
        Contract.objects.filter(matter_id=matter_id)
        .values(
            "id",
            "original_name",
            "status",
            "review__id",
            "review__status",
            "review__playbook_version__number",
            "review__playbook_version__playbook__name",
        )
        .order_by("original_name", "id")
    )
    if contract_ids is not None:
        contracts = contracts.filter(pk__in=list(contract_ids))
    return [dict(contract) for contract in contracts]


def _facts(contracts: Iterable[dict[str, Any]]) -> dict[int, dict[str, Fact]]:
    """{contract id: facts}, read as `facts_of` reads them, from the drafts' key facts alone."""
    contract_of = {c["review__id"]: c["id"] for c in contracts if c["review__id"] is not None}
    drafts = Draft.objects.filter(review_id__in=list(contract_of)).values_list(
        "review_id", "data__key_facts"
    )
    facts = {}
    for review_id, key_facts in drafts:
        facts[contract_of[review_id]] = facts_from_data(key_facts or {})
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
            open_items=Count(
                "passage__queue_items",
                filter=Q(passage__queue_items__status__in=OPEN_STATUSES),
                distinct=True,
            ),
        )
        .order_by()
    )
    flags: dict[int, dict[str, Any]] = defaultdict(dict)
    for row in rows:
        state_rank, passage_index = divmod(row["worst"], _INDEX_SPAN)
        contract_id = row["review__contract_id"]
        flags[contract_id][row["category"]] = {
            "state": STATE_RANK[state_rank] if state_rank < len(STATE_RANK) else None,
            "severity": SEVERITY_RANK[row["severity"]]
            if row["severity"] < len(SEVERITY_RANK)
            else None,
            "severity_label": severity_label(SEVERITY_RANK[row["severity"]])
            if row["severity"] < len(SEVERITY_RANK)
            else "",
            "passages": row["passages"],
            "open_items": row["open_items"],
            "passage_index": passage_index,
        }
    return flags


def _open_items(matter_id: int, contract_ids: Sequence[int] | None) -> dict[int, int]:
    """Open (or claimed) queue items per contract (per category: in `_flags`)."""
    items = QueueItem.objects.filter(matter_id=matter_id, status__in=OPEN_STATUSES)
    if contract_ids is not None:
        items = items.filter(review__contract_id__in=list(contract_ids))
    totals = items.values("review__contract_id").annotate(n=Count("id")).order_by()
    return {row["review__contract_id"]: row["n"] for row in totals}


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


def _fact_cell(fact: Fact) -> dict[str, Any]:
    value = fact.value
    sortable = value if isinstance(value, (str, int, float)) and value != "" else fact.display
    display = fact_shown(fact, as_value=True)
    # a spreadsheet's date cell: a whole date shown as nothing but itself (no "about", "unsure")
    plain_date = (
        fact.name in DATE_FACTS
        and isinstance(value, str)
        and as_date(value) is not None
        and display == date_value_shown(value)
    )
    # a whole date with words around it ("about …", "… (the agreement date)"): still a date
    # to sort by, the words kept beside it
    shown_date = date_value_shown(value) if isinstance(value, str) and as_date(value) else None
    qualified = fact.name in DATE_FACTS and not plain_date and shown_date and shown_date in display
    return {
        "display": display,
        "words": fact.display,  # the contract's own, where the display is a value
        "value": value,
        "sort": sortable,
        "date": value if plain_date else None,
        "qualified_date": value if qualified else None,
        "date_words": display.split(shown_date, 1) if qualified and shown_date else None,
        "passage_index": fact.passage_index,
    }


class _Labels:
    """Status labels translated once per grid, not once per row."""

    def __init__(self) -> None:
        self.document = {value: str(label) for value, label in DocumentStatus.choices}
        self.review = {value: str(label) for value, label in ReviewStatus.choices}


@dataclass(frozen=True)
class _RowContext:
    items_total: dict[int, int]  # open items per contract
    reruns: dict[int, int]  # latest re-run snapshot per contract
    labels: _Labels
    template: str  # contract_url_template()


def _row_labels(contract: dict[str, Any], labels: _Labels, template: str) -> dict[str, Any]:
    reviewed = contract["review__id"] is not None
    playbook = contract["review__playbook_version__playbook__name"]
    return {
        "url": passage_url(contract["id"], None, template),
        "status_label": labels.document.get(contract["status"], contract["status"]),
        "review_status_label": labels.review.get(contract["review__status"]) if reviewed else None,
        "playbook_version": f"{playbook}@{contract['review__playbook_version__number']}"
        if reviewed
        else None,
    }


def _row(
    contract: dict[str, Any],
    facts: dict[str, Fact],
    flags: dict[str, Any],
    context: _RowContext,
) -> dict[str, Any]:
    contract_id = contract["id"]
    rerun = context.reruns.get(contract_id)
    return {
        "contract_id": contract_id,
        "name": contract["original_name"],
        "status": contract["status"],
        "review_status": contract["review__status"],
        "open_items": context.items_total.get(contract_id, 0),
        "comparison_url": reverse("portfolio-comparison", args=[contract_id, rerun])
        if rerun
        else None,
        "facts": {name: _fact_cell(fact) for name, fact in facts.items()},
        "categories": flags,
        **_row_labels(contract, context.labels, context.template),
    }


@dataclass(frozen=True)
class Column:
    key: str  # "status", "fact:<name>" or "category:<name>"
    label: str  # in the reader's language
    kind: str  # "field", "fact" or "category"
    name: str = ""  # a fact's or category's own name: the key into a row's facts or categories


def grid_columns(grid: Grid) -> list[Column]:
    fixed = [
        Column("status", _("Document"), "field"),
        Column("review_status", _("Review"), "field"),
        Column("playbook_version", _("Playbook"), "field"),
        Column("open_items", _("Open items"), "field"),
    ]
    facts = [Column(f"fact:{n}", category_label(n), "fact", n) for n in grid.facts]
    categories = [
        Column(f"category:{n}", category_label(n), "category", n) for n in grid.categories
    ]
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
