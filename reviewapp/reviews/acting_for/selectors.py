"""Reads of the party the firm acts for, and of the parties it may be chosen from.

A contract's parties are those its draft's key facts name (offline extractors or the model),
else those its opening passages define; each keeps the role the contract defines for it. The
party acted for is the contract's own choice, else the matter's, provided the matter's party is
one of this contract's (with the role this contract gives it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reviewapp.accounts.models import Matter, Role
from reviewapp.accounts.selectors import AnyUser, membership_role
from reviewapp.contracts.models import Contract, Passage
from reviewapp.reviews.key_facts import facts_from_data
from reviewapp.reviews.models import Draft
from reviewapp.text.facts.model import PARTIES
from reviewapp.text.facts.parties import (
    Party,
    chinese_parties,
    defined_role,
    find_parties,
    party_named,
)

CHOOSERS = frozenset({Role.LAWYER, Role.ADMIN})
_OPENING_PASSAGES = 40


@dataclass(frozen=True)
class Sides:
    """The party acted for and, when the contract has exactly one other, the counterparty."""

    client: Party
    counterparty: Party | None
    from_matter: bool = False


def user_may_choose_party(*, user: AnyUser, matter_id: int) -> bool:
    """Lawyers and admins of the matter choose the party acted for; reviewers read it."""
    return membership_role(user=user, matter_id=matter_id) in CHOOSERS


def contract_parties(*, contract: Contract) -> list[Party]:
    """The contract's parties, in the order the contract names them."""
    data = Draft.objects.filter(review__contract=contract).values_list("data", flat=True).first()
    fact = facts_from_data((data or {}).get("key_facts") or {}).get(PARTIES)
    found = _as_parties(fact.value if fact is not None else None)
    if not found:
        return _opening_parties(contract.pk)
    text = Contract.objects.values_list("text", flat=True).get(pk=contract.pk) if found else ""
    return [
        party if party.role else Party(party.name, defined_role(text, party.name))
        for party in found
    ]


def _opening_parties(contract_id: int) -> list[Party]:
    """The parties the contract's opening passages define (a contract not yet drafted)."""
    opening = list(
        Passage.objects.filter(contract_id=contract_id).order_by("index")[:_OPENING_PASSAGES]
    )
    read = find_parties(opening)
    found = _as_parties(read.value if read is not None else None) or _as_parties(
        chinese_parties("\n".join(passage.text for passage in opening))
    )
    if not found or all(party.role for party in found):
        return found
    text = Contract.objects.values_list("text", flat=True).get(pk=contract_id)
    return [
        party if party.role else Party(party.name, defined_role(text, party.name))
        for party in found
    ]


def matter_parties(*, matter: Matter) -> list[Party]:
    """Every party the matter's contracts' drafts name, once by name, in upload order."""
    rows = (
        Draft.objects.filter(review__contract__matter=matter)
        .order_by("review__contract__created_at", "review__contract_id")
        .values_list("data__key_facts__Parties__value", flat=True)
    )
    kept: list[Party] = []
    for value in rows:
        for party in _as_parties(value):
            if party_named(kept, party.name) is None:
                kept.append(party)
    return kept


def acting_party(contract: Contract, *, parties: Sequence[Party] | None = None) -> Party | None:
    """The party the firm acts for in this contract: the contract's choice wins over the
    matter's; the matter's stands only for a contract it is a party of (or whose parties are
    not known), with the role this contract defines for it. ``parties``: the contract's, when
    the caller has read them."""
    if contract.acting_for_name:
        return Party(contract.acting_for_name, contract.acting_for_role)
    matter = contract.matter
    if not matter.acting_for_name:
        return None
    known = contract_parties(contract=contract) if parties is None else parties
    return _matter_party_here(Party(matter.acting_for_name, matter.acting_for_role), known)


def _matter_party_here(party: Party, parties: Sequence[Party]) -> Party | None:
    return party_named(parties, party.name) if parties else party


def _sides(client: Party | None, parties: Sequence[Party], *, from_matter: bool) -> Sides | None:
    if client is None:
        return None
    others = [party for party in parties if party_named([client], party.name) is None]
    return Sides(
        client=client,
        counterparty=others[0] if len(others) == 1 else None,
        from_matter=from_matter,
    )


def acting_sides(contract: Contract) -> Sides | None:
    """Who is who in the contract, for the words a lawyer reads; None until a party is chosen."""
    parties = contract_parties(contract=contract)
    client = acting_party(contract, parties=parties)
    return _sides(client, parties, from_matter=not contract.acting_for_name)


def acting_sides_by_contract(contract_ids: Iterable[int]) -> dict[int, Sides | None]:
    """``acting_sides`` of many contracts in a fixed number of queries (a page of queue items).
    A contract's parties are its draft's here; a contract without a draft has the party it or
    its matter chose, and no counterparty."""
    ids = sorted(set(contract_ids))
    rows = Contract.objects.filter(pk__in=ids).values_list(
        "pk",
        "acting_for_name",
        "acting_for_role",
        "matter__acting_for_name",
        "matter__acting_for_role",
    )
    chosen = {
        pk: (Party(name, role), Party(m_name, m_role)) for pk, name, role, m_name, m_role in rows
    }
    sides: dict[int, Sides | None] = dict.fromkeys(ids)
    wanted = [pk for pk, (own, default) in chosen.items() if own.name or default.name]
    if not wanted:
        return sides
    parties = _draft_parties(wanted)
    for pk in wanted:
        own, default = chosen[pk]
        known = parties.get(pk) or _opening_parties(pk)
        client = own if own.name else _matter_party_here(default, known)
        sides[pk] = _sides(client, known, from_matter=not own.name)
    return sides


def _draft_parties(contract_ids: list[int]) -> dict[int, list[Party]]:
    rows = Draft.objects.filter(review__contract_id__in=contract_ids).values_list(
        "review__contract_id", "data__key_facts__Parties__value"
    )
    found = {pk: _as_parties(value) for pk, value in rows}
    roleless = [pk for pk, parties in found.items() if any(not p.role for p in parties)]
    texts = (
        dict(Contract.objects.filter(pk__in=roleless).values_list("pk", "text")) if roleless else {}
    )
    return {
        pk: [
            p if p.role else Party(p.name, defined_role(texts.get(pk, ""), p.name)) for p in parties
        ]
        for pk, parties in found.items()
    }


def _as_parties(value: Any) -> list[Party]:
    if not isinstance(value, list):
        return []
    return [
        Party(" ".join(str(item["name"]).split()), " ".join(str(item.get("role") or "").split()))
        for item in value
        if isinstance(item, Mapping) and item.get("name")
    ]


@dataclass(frozen=True)
class ActingForPanel:
    """What a page shows of the party acted for: the party (None: not chosen, so the page asks),
    whether it is the matter's default, what may be chosen, and whether this reader may."""

    party: Party | None
    from_matter: bool
    choices: list[Party]
    may_choose: bool
    matter_party: Party | None = None
    selected: str = ""  # the name chosen at this level (the contract's own, or the matter's)
    sides: Sides | None = None


def contract_acting_for_panel(*, contract: Contract, user: AnyUser) -> ActingForPanel:
    parties = contract_parties(contract=contract)
    matter = contract.matter
    party = acting_party(contract, parties=parties)
    return ActingForPanel(
        party=party,
        from_matter=not contract.acting_for_name,
        choices=parties,
        may_choose=user_may_choose_party(user=user, matter_id=contract.matter_id),
        matter_party=Party(matter.acting_for_name, matter.acting_for_role)
        if matter.acting_for_name
        else None,
        selected=contract.acting_for_name,
        sides=_sides(party, parties, from_matter=not contract.acting_for_name),
    )


def matter_acting_for_panel(*, matter: Matter, user: AnyUser) -> ActingForPanel:
    party = (
        Party(matter.acting_for_name, matter.acting_for_role) if matter.acting_for_name else None
    )
    return ActingForPanel(
        party=party,
        from_matter=True,
        choices=matter_parties(matter=matter),
        may_choose=user_may_choose_party(user=user, matter_id=matter.pk),
        matter_party=party,
        selected=matter.acting_for_name,
    )
