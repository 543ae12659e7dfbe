"""Reading the queue: which items a user sees, filtered (matter, contract, category, severity,
state, overdue, mine), with the live count of every filter value, and how many items wait
for whom. The filters arrive as the page's query string, so a filtered view survives a
reload and can be shared."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from typing import Any

from django.db.models import Case, Count, IntegerField, Q, QuerySet, Value, When
from django.http import QueryDict
from django.utils import timezone

from reviewapp.accounts.models import Membership, Role
from reviewapp.accounts.selectors import AnyUser
from reviewapp.contracts.models import PassageState
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.queue.records import DECIDERS
from reviewapp.rules.display_labels import category_label, severity_label, state_label
from reviewapp.text.engine.model import SEVERITIES, SEVERITY_RANK

STATES = (PassageState.REJECTED, PassageState.NEEDS_HUMAN_REVIEW)
GROUPINGS = ("", "contract")


@dataclass(frozen=True)
class QueueFilters:
    """The queue's filters; an empty value means "any". Unknown values are dropped."""

    matter: int | None = None
    contract: int | None = None
    category: str = ""
    severity: str = ""
    state: str = ""
    overdue: bool = False
    mine: bool = False
    group: str = ""

    @classmethod
    def from_query(cls, query: QueryDict) -> QueueFilters:
        def number(name: str) -> int | None:
            value = query.get(name, "")
            return int(value) if value.isdigit() else None

        severity, state, group = (
            query.get("severity", ""),
            query.get("state", ""),
            query.get("group", ""),
        )
        return cls(
            matter=number("matter"),
            contract=number("contract"),
            category=query.get("category", "")[:80],
            severity=severity if severity in SEVERITIES else "",
            state=state if state in STATES else "",
            overdue=query.get("overdue") == "1",
            mine=query.get("mine") == "1",
            group=group if group in GROUPINGS else "",
        )

    def query_string(self, **changes: Any) -> str:
        """This view's query string with some filters changed (``None``/``""`` drops one)."""
        changed = replace(self, **changes)
        query = QueryDict(mutable=True)
        for spec in fields(changed):
            value = getattr(changed, spec.name)
            if value is True:
                query[spec.name] = "1"
            elif value not in (None, "", False):
                query[spec.name] = str(value)
        return query.urlencode()

    @property
    def active(self) -> bool:
        return any(
            getattr(self, spec.name) not in (None, "", False)
            for spec in fields(self)
            if spec.name != "group"
        )


def _rank() -> Case:
    return Case(
        *[When(severity=name, then=Value(value)) for name, value in SEVERITY_RANK.items()],
        default=Value(len(SEVERITY_RANK)),
        output_field=IntegerField(),
    )


def _decider_matters(user: Any) -> Any:
    """The matters where the user decides, as a subquery."""
    return Membership.objects.filter(user=user, role__in=DECIDERS).values("matter")


def admin_matter_ids(*, user: AnyUser) -> set[int]:
    """The matters where the user is an admin (who may release a colleague's claim)."""
    if not user.is_authenticated:
        return set()
    return set(
        Membership.objects.filter(user=user, role=Role.ADMIN).values_list("matter_id", flat=True)
    )


def may_release(item: QueueItem, user: AnyUser, admin_of: set[int]) -> bool:
    return item.status == ItemStatus.CLAIMED and (
        item.claimed_by_id == user.pk or item.matter_id in admin_of
    )


@dataclass(frozen=True)
class ApiFilters:
    """The API's filters (``GET /api/queue/``); an empty value means "any"."""

    matter: int | None = None
    contract: int | None = None
    state: str = ""  # the passage's state when the item was opened
    category: str = ""  # one of the categories the item asks about
    claimed_by: str = ""  # a username
    status: str = ""  # OPEN, CLAIMED, DONE or "any" (default: OPEN and CLAIMED)


ANY_STATUS = "any"


def queue_items_for_api(*, user: AnyUser, filters: ApiFilters) -> QuerySet[QueueItem]:
    """Items of every matter the user belongs to (reviewers read them too), oldest due first."""
    if not user.is_authenticated:
        return QueueItem.objects.none()
    member_of = Membership.objects.filter(user=user).values("matter")
    items = QueueItem.objects.filter(matter__in=member_of)
    where = Q()
    if filters.matter is not None:
        where &= Q(matter_id=filters.matter)
    if filters.contract is not None:
        where &= Q(passage__contract_id=filters.contract)
    if filters.state:
        where &= Q(state=filters.state)
    if filters.category:
        quoted = json.dumps(filters.category, ensure_ascii=False)
        where &= Q(category=filters.category) | Q(categories__icontains=quoted)
    if filters.claimed_by:
        where &= Q(claimed_by__username=filters.claimed_by)
    if filters.status == ANY_STATUS:
        pass
    elif filters.status:
        where &= Q(status=filters.status)
    else:
        where &= ~Q(status=ItemStatus.DONE)
    return (
        items.filter(where)
        .select_related("passage", "claimed_by", "decided_by", "raised_by")
        .order_by("due_at", "pk")
    )


def queue_item_for_api(*, user: AnyUser, item_id: int) -> QueueItem | None:
    """One item of a matter the user belongs to, whatever its status."""
    found = queue_items_for_api(user=user, filters=ApiFilters(status=ANY_STATUS))
    return (
        QueueItem.objects.filter(pk=item_id, pk__in=found.values("pk"))
        .select_related("passage", "claimed_by", "decided_by", "raised_by")
        .first()
    )


def queue_items_for_user(*, user: AnyUser) -> QuerySet[QueueItem]:
    """Open and claimed items of the matters where the user decides, most urgent first."""
    if not user.is_authenticated:
        return QueueItem.objects.none()
    return (
        QueueItem.objects.filter(matter__in=_decider_matters(user))
        .exclude(status=ItemStatus.DONE)
        .select_related("passage__contract", "claimed_by", "matter", "review")
        # A contract's text can run to megabytes; the queue needs its name, not its text.
        .defer("passage__contract__text", "passage__contract__page_spans")
        .annotate(rank=_rank())
        .order_by("rank", "due_at", "pk")
    )


def _filtered(items: QuerySet[QueueItem], filters: QueueFilters, user: AnyUser) -> QuerySet:
    where = Q()
    if filters.matter is not None:
        where &= Q(matter_id=filters.matter)
    if filters.contract is not None:
        where &= Q(passage__contract_id=filters.contract)
    if filters.category:
        where &= Q(category=filters.category)
    if filters.severity:
        where &= Q(severity=filters.severity)
    if filters.state:
        where &= Q(state=filters.state)
    if filters.overdue:
        where &= Q(due_at__lt=timezone.now())
    if filters.mine:
        where &= Q(status=ItemStatus.CLAIMED, claimed_by=user)
    return items.filter(where)


def queue_items_filtered(*, user: AnyUser, filters: QueueFilters) -> QuerySet[QueueItem]:
    """The items of the view, most urgent first; grouped by contract, contract by contract."""
    items = _filtered(queue_items_for_user(user=user), filters, user)
    if filters.group == "contract":
        items = items.order_by(
            "passage__contract__original_name", "passage__contract_id", "rank", "due_at", "pk"
        )
    return items


def queue_items_page(items: QuerySet[QueueItem], offset: int, size: int) -> list[QueueItem]:
    """One page of ``items``: the ids first, sorted on the item table alone (no joins for
    thousands of rows), then those rows with everything the page shows."""
    ids = list(items.values_list("pk", flat=True)[offset : offset + size])
    rows = {item.pk: item for item in items.order_by().filter(pk__in=ids)}
    return [rows[pk] for pk in ids if pk in rows]


# The words a filter shows for a stored code, in the reader's language.
FACET_WORDS = {"category": category_label, "severity": severity_label, "state": state_label}

FACETS = {
    "matter": ("matter_id", "matter__name"),
    "contract": ("passage__contract_id", "passage__contract__original_name"),
    "category": ("category", "category"),
    "severity": ("severity", "severity"),
    "state": ("state", "state"),
}


def queue_facets(*, user: AnyUser, filters: QueueFilters) -> dict[str, Any]:
    """Live counts for the filter bar: per value of each filter, how many items it would show
    with the other filters as they are; and the overdue and mine counts. Seven queries."""
    base = queue_items_for_user(user=user).order_by()
    facets: dict[str, Any] = {}
    for name, (key, label) in FACETS.items():
        others = _filtered(base, replace(filters, **{name: _empty(name)}), user)
        rows = others.values(key, label).annotate(n=Count("pk")).order_by(label)
        values = [{"value": row[key], "label": row[label], "n": row["n"]} for row in rows]
        if name in FACET_WORDS:
            words = FACET_WORDS[name]
            for value in values:
                value["label"] = words(value["value"]) if value["value"] else ""
            values.sort(key=lambda v: v["label"])
        if name == "severity":
            values.sort(key=lambda v: SEVERITY_RANK.get(v["value"], len(SEVERITY_RANK)))
        facets[name] = values
    now = timezone.now()
    facets["overdue"] = (
        _filtered(base, replace(filters, overdue=False), user).filter(due_at__lt=now).count()
    )
    facets["mine"] = (
        _filtered(base, replace(filters, mine=False), user)
        .filter(status=ItemStatus.CLAIMED, claimed_by=user)
        .count()
    )
    return facets


def _empty(name: str) -> Any:
    return None if name in ("matter", "contract") else ""


def queue_waiting_summary(*, user: AnyUser) -> list[dict[str, Any]]:
    """For every matter the user belongs to (any role, reviewers too): how many items wait,
    how many are claimed and by whom, and which lawyers may decide them. Two queries."""
    if not user.is_authenticated:
        return []
    matters = Membership.objects.filter(user=user).values("matter")
    rows = (
        QueueItem.objects.filter(matter__in=matters)
        .exclude(status=ItemStatus.DONE)
        .values("matter_id", "matter__name", "status", "claimed_by__username")
        .annotate(n=Count("pk"))
        .order_by("matter__name", "claimed_by__username")
    )
    summary: dict[int, dict[str, Any]] = {}
    for row in rows:
        entry = summary.setdefault(
            row["matter_id"],
            {
                "matter_id": row["matter_id"],
                "matter": row["matter__name"],
                "waiting": 0,
                "open": 0,
                "claimed": [],
                "lawyers": [],
            },
        )
        entry["waiting"] += row["n"]
        if row["status"] == ItemStatus.OPEN:
            entry["open"] += row["n"]
        else:
            entry["claimed"].append({"username": row["claimed_by__username"], "n": row["n"]})
    deciders = Membership.objects.filter(matter_id__in=summary, role__in=DECIDERS).values_list(
        "matter_id", "user__username"
    )
    for matter_id, username in deciders.order_by("user__username"):
        summary[matter_id]["lawyers"].append(username)
    return list(summary.values())


def queue_items_decided_by(*, user: AnyUser, limit: int = 20) -> QuerySet[QueueItem]:
    """The user's latest decisions, whose notes they may still change (or undo, in time)."""
    if not user.is_authenticated:
        return QueueItem.objects.none()
    return (
        QueueItem.objects.filter(
            matter__in=_decider_matters(user), status=ItemStatus.DONE, decided_by=user
        )
        .select_related("passage__contract")
        .defer("passage__contract__text", "passage__contract__page_spans")
        .order_by("-decided_at", "-pk")[:limit]
    )
