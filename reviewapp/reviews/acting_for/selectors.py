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
from reviewapp.contracts.models import Contract
from reviewapp.reviews.key_facts import facts_from_data
from reviewapp.reviews.models import Draft
from reviewapp.rules.facts.model import PARTIES
from reviewapp.rules.facts.parties import (
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
        opening = list(contract.passages.order_by("index")[:_OPENING_PASSAGES])
        read = find_parties(opening)
        found = _as_parties(read.value if read is not None else None) or _as_parties(
            chinese_parties("\n".join(passage.text for passage in opening))
        )
    text = Contract.objects.values_list("text", flat=True).get(pk=contract.pk) if found else ""
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
    if not known:
        return Party(matter.acting_for_name, matter.acting_for_role)
    return party_named(known, matter.acting_for_name)


def acting_sides(contract: Contract) -> Sides | None:
    """Who is who in the contract, for the words a lawyer reads; None until a party is chosen."""
    parties = contract_parties(contract=contract)
    client = acting_party(contract, parties=parties)
    if client is None:
        return None
    others = [party for party in parties if party_named([client], party.name) is None]
    return Sides(
        client=client,
        counterparty=others[0] if len(others) == 1 else None,
        from_matter=not contract.acting_for_name,
    )


def acting_sides_by_contract(contracts: Iterable[Contract]) -> dict[int, Sides | None]:
    """``acting_sides`` of each contract once (a page of queue items shares few contracts)."""
    sides: dict[int, Sides | None] = {}
    for contract in contracts:
        if contract.pk not in sides:
            sides[contract.pk] = acting_sides(contract)
    return sides


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


def contract_acting_for_panel(*, contract: Contract, user: AnyUser) -> ActingForPanel:
    parties = contract_parties(contract=contract)
    matter = contract.matter
    return ActingForPanel(
        party=acting_party(contract, parties=parties),
        from_matter=not contract.acting_for_name,
        choices=parties,
        may_choose=user_may_choose_party(user=user, matter_id=contract.matter_id),
        matter_party=Party(matter.acting_for_name, matter.acting_for_role)
        if matter.acting_for_name
        else None,
        selected=contract.acting_for_name,
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
