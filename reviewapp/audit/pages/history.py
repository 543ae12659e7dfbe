"""Reading the audit log for people: a contract's history and an organisation's log, one page
at a time, in a fixed number of queries whatever the page holds.

A scan writes one event per passage; the ones where no rule fired (a trigger rule confirming a
passage) are counted in one line, not listed, so that the decisions stay readable.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.core.paginator import Page, Paginator
from django.db.models import Q, QuerySet
from django.db.models.functions import Substr
from django.utils import timezone

from reviewapp.accounts.models import Matter
from reviewapp.audit.models import AuditAction, AuditActorKind, AuditEvent
from reviewapp.audit.pages.wording import (
    EventLine,
    EventLookups,
    PassageRef,
    event_line,
    event_passage_pk,
)
from reviewapp.contracts.models import Contract, Passage
from reviewapp.reviews.models import Review, RuleFiring

PER_PAGE = 50
OPENING_CHARS = 200


@dataclass(frozen=True)
class LogFilters:
    organisation_ids: tuple[int, ...]
    actor: str = ""
    action: str = ""
    contract_id: int | None = None
    date_from: date | None = None
    date_to: date | None = None


@dataclass(frozen=True)
class EventPage:
    page: Page
    lines: list[EventLine]
    quiet_confirmations: int = 0  # passages no rule fired on, counted not listed


def contract_history_page(*, contract: Contract, number: int | str | None = 1) -> EventPage:
    """The contract's events, newest first. The caller has checked the user may see it."""
    events = _contract_events(contract.matter.organisation_id, contract.pk)
    quiet = _quiet_confirmations()
    page = Paginator(events.exclude(quiet).order_by("-created_at", "-seq"), PER_PAGE)
    shown = page.get_page(number)
    return EventPage(shown, _lines(list(shown.object_list)), events.filter(quiet).count())


def audit_log_page(*, filters: LogFilters, number: int | str | None = 1) -> EventPage:
    """The organisations' events, newest first, filtered; the caller checked they are admin."""
    events = AuditEvent.objects.filter(organisation_id__in=filters.organisation_ids)
    if filters.actor:
        events = events.filter(actor__iexact=filters.actor.strip())
    if filters.action:
        events = events.filter(action=filters.action)
    if filters.contract_id is not None:
        events = events.filter(_of_contract(filters.contract_id))
    if filters.date_from:
        events = events.filter(created_at__gte=_day_start(filters.date_from))
    if filters.date_to:
        events = events.filter(created_at__lt=_day_start(filters.date_to + timedelta(days=1)))
    page = Paginator(events.order_by("-created_at", "-seq"), PER_PAGE).get_page(number)
    return EventPage(page, _lines(list(page.object_list)))


def _contract_events(organisation_id: int, contract_id: int) -> QuerySet[AuditEvent]:
    return AuditEvent.objects.filter(organisation_id=organisation_id).filter(
        _of_contract(contract_id)
    )


def _of_contract(contract_id: int) -> Q:
    """Events on the contract, its passages, its review, its queue items and its exports."""
    review_ids = list(Review.objects.filter(contract_id=contract_id).values_list("pk", flat=True))
    query = Q(target_type="contract", target_id=str(contract_id)) | Q(data__contract_id=contract_id)
    if review_ids:
        query |= Q(data__review_id__in=review_ids)
    return query


def _quiet_confirmations() -> Q:
    """A trigger rule only ever confirms a passage that no rule fired on."""
    return Q(
        action=AuditAction.PASSAGE_TRANSITION, actor_kind=AuditActorKind.RULE, data__to="CONFIRMED"
    )


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def _lines(events: list[AuditEvent]) -> list[EventLine]:
    lookups = event_lookups(events)
    return [event_line(event, lookups) for event in events]


def event_lookups(events: list[AuditEvent]) -> EventLookups:
    """Passages, contracts, reviews, rule categories and matters the events name: at most five
    queries, none when the page names nothing of that kind."""
    lookups = EventLookups()
    passage_pks = {pk for pk in map(event_passage_pk, events) if pk is not None}
    review_ids = {
        e.data["review_id"]
        for e in events
        if isinstance(e.data, dict) and isinstance(e.data.get("review_id"), int)
    }
    if review_ids:
        lookups.review_contracts = dict(
            Review.objects.filter(pk__in=review_ids).values_list("pk", "contract_id")
        )
    if passage_pks:
        rows = (
            Passage.objects.filter(pk__in=passage_pks)
            .annotate(opening=Substr("text", 1, OPENING_CHARS))
            .values_list("pk", "contract_id", "index", "number", "opening")
        )
        lookups.passages = {pk: PassageRef(c, i, n, o) for pk, c, i, n, o in rows}
    contract_ids = _contract_ids(events, lookups)
    if contract_ids:
        lookups.contracts = dict(
            Contract.objects.filter(pk__in=contract_ids).values_list("pk", "original_name")
        )
    rule_ids = {r for e in events for r in _rules_of(e)}
    if rule_ids and review_ids:
        lookups.categories = dict(
            RuleFiring.objects.filter(review_id__in=review_ids, rule_id__in=rule_ids)
            .values_list("rule_id", "category")
            .distinct()
        )
    matter_ids = {
        int(e.target_id) for e in events if e.target_type == "matter" and e.target_id.isdigit()
    }
    if matter_ids:
        lookups.matters = dict(Matter.objects.filter(pk__in=matter_ids).values_list("pk", "name"))
    return lookups


def _contract_ids(events: list[AuditEvent], lookups: EventLookups) -> set[int]:
    ids = {ref.contract_id for ref in lookups.passages.values()}
    ids |= set(lookups.review_contracts.values())
    for event in events:
        if event.target_type == "contract" and event.target_id.isdigit():
            ids.add(int(event.target_id))
        elif isinstance(event.data, dict) and isinstance(event.data.get("contract_id"), int):
            ids.add(event.data["contract_id"])
    return ids


def _rules_of(event: AuditEvent) -> list[str]:
    rules = event.data.get("rules") if isinstance(event.data, dict) else None
    return [r for r in rules if isinstance(r, str)] if isinstance(rules, list) else []
