"""The playbook's standard wording in the contract's own terms for its parties (pure Python).

The shipped playbooks' standard wording names the parties by generic roles ("Supplier shall
not sell ...", "the Customer's sole remedy", 乙方不得, 买方逾期付款的), which are often not the
contract's defined terms. ``in_contract_terms`` rewrites each such word to the defined term of
the party on that side of the deal (the supplier's side or the customer's side), read from the
roles the contract defines ("Buyer", "Licensor", 卖方). A side whose party cannot be told keeps
the playbook's word, reported in ``kept``: a wrong party named in a clause is worse than a
generic word a lawyer sees at once.

A contract's 甲方 and 乙方 (or "Party A") say nothing of the deal by themselves, so they tell a
side only where the preamble writes the deal role beside them (甲方（买方）, 卖方（以下简称“乙方”）,
"Party A (Seller)"). The shipped Chinese playbook itself writes 甲方 for the customer and 乙方
for the supplier, as purchase contracts usually do, so those words of its standard wording are
rewritten like the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from reviewapp.text.facts.parties import Party

Kind = Literal["supplier", "customer"]
SUPPLIER: Kind = "supplier"
CUSTOMER: Kind = "customer"

# Defined roles that tell the side of the deal, whoever wrote them (playbook or contract).
_EN_ROLES: dict[str, Kind] = {
    **dict.fromkeys(
        (
            "Supplier",
            "Seller",
            "Vendor",
            "Licensor",
            "Provider",
            "Service Provider",
            "Manufacturer",
            "Contractor",
            "Consultant",
            "Lessor",
            "Landlord",
            "Franchisor",
        ),
        SUPPLIER,
    ),
    **dict.fromkeys(
        (
            "Customer",
            "Buyer",
            "Purchaser",
            "Client",
            "Licensee",
            "Lessee",
            "Tenant",
            "Franchisee",
            "Distributor",
            "Reseller",
        ),
        CUSTOMER,
    ),
}
_ZH_ROLES: dict[str, Kind] = {
    **dict.fromkeys(
        (
            "卖方",
            "出卖人",
            "供方",
            "供货方",
            "供应商",
            "提供方",
            "服务方",
            "许可方",
            "授权方",
            "授予方",
            "出租方",
            "出租人",
            "受托方",
        ),
        SUPPLIER,
    ),
    **dict.fromkeys(
        (
            "买方",
            "买受人",
            "需方",
            "采购方",
            "被许可方",
            "被授权方",
            "承租方",
            "承租人",
            "委托方",
        ),
        CUSTOMER,
    ),
}
# The shipped Chinese playbook's own convention (see the module's docstring).
_ZH_PLAYBOOK_ONLY: dict[str, Kind] = {"甲方": CUSTOMER, "乙方": SUPPLIER}
_PLAYBOOK_ROLES = {**_EN_ROLES, **_ZH_ROLES, **_ZH_PLAYBOOK_ONLY}


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


# "Supplier", "the Customer's" (a capitalised defined role, not "customers buying ...");
# Chinese words need no boundary, the longer one wins (被授权方 over 授权方).
_PLAYBOOK_WORD = re.compile(
    rf"(?P<the>\b[Tt]he\s+)?(?<![\w-])(?P<en>{_alternation(list(_EN_ROLES))})(?![\w-])"
    rf"|(?P<zh>{_alternation([*_ZH_ROLES, *_ZH_PLAYBOOK_ONLY])})"
)


_KIND_WORDS = _alternation([*_EN_ROLES, *_ZH_ROLES])
# How far into a contract its parties are introduced.
PREAMBLE_CHARS = 3000


def role_kind(role: str, preamble: str = "") -> Kind | None:
    """The side of the deal a contract's defined role tells ("Buyer": the customer's), if any;
    for a role that tells none (甲方, "Party A"), the deal role the contract's ``preamble``
    writes beside it (甲方（买方）, 卖方（以下简称“乙方”）, "Party A (Seller)")."""
    words = " ".join(role.split()).strip()
    for lexicon in (_EN_ROLES, _ZH_ROLES):
        for known, kind in lexicon.items():
            if words.casefold() == known.casefold():
                return kind
    if not words or not preamble:
        return None
    beside = _beside(words).search(preamble[:PREAMBLE_CHARS])
    return role_kind(beside.group("kind") or beside.group("kind2")) if beside else None


def _beside(role: str) -> re.Pattern[str]:
    said = r"\s*".join(re.escape(word) for word in role.split())
    quote = '["“”「」]?'
    return re.compile(
        rf"(?<![\w-]){said}\s*[（(]\s*(?P<kind>{_KIND_WORDS})\s*[）)]"
        rf"|(?<![\w-])(?P<kind2>{_KIND_WORDS})\s*[（(]\s*(?:以下简称|以下称|下称|简称|hereinafter)?"
        rf"\s*[:：]?\s*{quote}{said}{quote}\s*[）)]",
        re.IGNORECASE,
    )


@dataclass(frozen=True)
class Terms:
    """``text`` with the parties named as the contract names them; ``swapped`` the (playbook
    word, contract term) pairs used, ``kept`` the playbook's words left as written."""

    text: str
    swapped: tuple[tuple[str, str], ...] = ()
    kept: tuple[str, ...] = ()


def playbook_roles(text: str) -> tuple[str, ...]:
    """The generic role words ``text`` names the parties by, once each, in order."""
    found = (m.group("en") or m.group("zh") for m in _PLAYBOOK_WORD.finditer(text))
    return tuple(dict.fromkeys(found))


def deal_sides(
    client: Party | None, counterparty: Party | None, *, preamble: str = ""
) -> dict[Kind, Party]:
    """Which party stands on which side of the deal, read from their defined roles; in a
    two-party contract, the party whose role tells nothing is on the side the other is not.
    Only where the roles alone leave a side open is the contract's ``preamble`` read for the
    deal role written beside them (so a caller that reads it only then gets the same answer).
    Empty when it cannot be told (no party chosen, no role telling a side, or both roles
    telling the same one)."""
    parties = [party for party in (client, counterparty) if party is not None]
    sides = _sides(parties, [role_kind(party.role) for party in parties])
    if len(sides) == 2 or not preamble:
        return sides
    return _sides(parties, [role_kind(party.role, preamble) for party in parties])


def _sides(parties: list[Party], kinds: list[Kind | None]) -> dict[Kind, Party]:
    if len(parties) == 1:
        return {kinds[0]: parties[0]} if kinds[0] else {}
    if len(parties) != 2 or kinds[0] == kinds[1]:
        return {}
    known = 0 if kinds[0] else 1
    kind = kinds[known]
    assert kind is not None
    return {kind: parties[known], _other(kind): parties[1 - known]}


def _other(kind: Kind) -> Kind:
    return CUSTOMER if kind == SUPPLIER else SUPPLIER


def in_contract_terms(text: str, sides: dict[Kind, Party]) -> Terms:
    """``text`` (a playbook's standard wording) with each generic role word naming the party
    ``sides`` puts on that word's side, by the party's defined term (its role, else its name);
    a side ``sides`` lacks keeps its words (``kept``)."""
    swapped: dict[str, str] = {}
    kept: dict[str, None] = {}

    def rewrite(match: re.Match[str]) -> str:
        word = match.group("en") or match.group("zh")
        party = sides.get(_PLAYBOOK_ROLES[word])
        if party is None:
            kept[word] = None
            return match.group(0)
        swapped[word] = party.term
        the = match.group("the") or ""
        # "the Customer's" -> "the Buyer's", but a party known only by its name takes no "the"
        return (the if party.role else "") + party.term

    rewritten = _PLAYBOOK_WORD.sub(rewrite, text)
    pairs = tuple((word, term) for word, term in swapped.items() if word != term)
    return Terms(rewritten, pairs, tuple(kept))
