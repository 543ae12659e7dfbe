"""Reading the audit log: walk each chain and find the first row that is not what was written."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import CharField, Exists, F, Func, OuterRef, Q, QuerySet, TextField
from django.db.models.functions import Cast
from django.utils.text import slugify

from reviewapp.audit.chain import ROW_FIELDS, ChainBreak, check_head, walk_chain
from reviewapp.audit.models import SYSTEM_CHAIN, AuditChain, AuditEvent
from reviewapp.audit.services import chain_key

VERIFY_CHUNK_SIZE = 10_000
# The same text as chain.utc_iso: 2025-01-31T09:30:00.000000+00:00
_PG_UTC_ISO = (
    """to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')"""
)


class OrganisationNotFound(LookupError):
    pass


@dataclass(frozen=True)
class ChainReport:
    label: str
    organisation_id: int | None
    events: int
    problem: ChainBreak | None

    @property
    def intact(self) -> bool:
        return self.problem is None

    def describe(self) -> str:
        if self.problem is None:
            return f"{self.label}: {self.events} events, chain intact"
        where = f"seq {self.problem.seq}" if self.problem.seq is not None else "end of chain"
        if self.problem.event_id is not None:
            where += f", id {self.problem.event_id}"
        return f"{self.label}: first bad row at {where}: {self.problem.message}"


def audit_events_of_chain(*, organisation_id: int | None) -> QuerySet[AuditEvent]:
    if organisation_id is None:
        return AuditEvent.objects.filter(organisation__isnull=True)
    return AuditEvent.objects.filter(organisation_id=organisation_id)


def _organisations() -> QuerySet[Any]:
    """The organisations, through the chain's relation: the audit log's writing side sits below
    the accounts app and imports none of it."""
    return AuditChain._meta.get_field("organisation").related_model._default_manager.all()


def audit_organisation_resolve(*, reference: str) -> int | None:
    """An organisation by id, name or slug of its name; "system" is the chain of no organisation."""
    if reference.strip().lower() == SYSTEM_CHAIN:
        return None
    query = Q(name__iexact=reference.strip())
    if reference.strip().isdigit():
        query |= Q(pk=int(reference))
    match = _organisations().filter(query).values_list("pk", flat=True).first()
    if match is not None:
        return match
    slug = slugify(reference)
    for pk, name in _organisations().values_list("pk", "name").iterator():
        if slugify(name) == slug:
            return pk
    raise OrganisationNotFound(f"No organisation {reference!r} (give its id, name or slug).")


def audit_chain_ids() -> list[int | None]:
    """Every chain that has a head or an event (a deleted head still gets its rows checked)."""
    with_events = (
        _organisations()
        .filter(Exists(AuditEvent.objects.filter(organisation=OuterRef("pk"))))
        .values_list("pk", flat=True)
    )
    heads = AuditChain.objects.values_list("organisation_id", flat=True)
    ids: set[int | None] = {*with_events, *heads}
    if AuditEvent.objects.filter(organisation__isnull=True).exists():
        ids.add(None)
    return sorted(ids, key=lambda pk: -1 if pk is None else pk)


def audit_chain_verify(
    *, organisation_id: int | None, chunk_size: int = VERIFY_CHUNK_SIZE
) -> ChainReport:
    """Walk one chain in seq order (a server-side cursor), recomputing every hash."""
    events = audit_events_of_chain(organisation_id=organisation_id)
    rows = _chain_rows(events).iterator(chunk_size=chunk_size)

    def seq_of_hash(digest: str) -> int | None:
        return events.filter(hash=digest).values_list("seq", flat=True).first()

    walk = walk_chain(rows, organisation_id=organisation_id, seq_of_hash=seq_of_hash)
    head = AuditChain.objects.filter(key=chain_key(organisation_id)).first()
    problem = check_head(
        walk,
        head_seq=head.last_seq if head else None,
        head_hash=head.last_hash if head else None,
    )
    return ChainReport(_label(organisation_id), organisation_id, walk.events, problem)


def _chain_rows(events: QuerySet[AuditEvent]) -> QuerySet[AuditEvent, tuple[Any, ...]]:
    """ROW_FIELDS in seq order. PostgreSQL formats the time and hands `data` over as text:
    parsing timestamps and JSON through the ORM would double the time of a million rows."""
    ordered = events.order_by("seq")
    if connection.vendor != "postgresql":
        return ordered.values_list(*ROW_FIELDS)
    fields = [{"created_at": "created_utc", "data": "data_text"}.get(f, f) for f in ROW_FIELDS]
    return ordered.annotate(
        created_utc=Func(F("created_at"), template=_PG_UTC_ISO, output_field=CharField()),
        data_text=Cast("data", TextField()),
    ).values_list(*fields)


def _label(organisation_id: int | None) -> str:
    if organisation_id is None:
        return "system chain"
    name = _organisations().filter(pk=organisation_id).values_list("name", flat=True).first()
    return f"organisation {name!r} (id {organisation_id})"
