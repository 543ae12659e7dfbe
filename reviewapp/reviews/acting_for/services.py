"""Choosing the party the firm acts for, on a matter (the default) or a contract (over it).

Only a party the contract (or, for a matter, one of its contracts) names may be chosen, with the
role the contract defines for it; a blank name clears the choice. Each change is audited, and
announced once committed (``acting_for_changed``: the queue works out its items' severity again).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils.translation import gettext as _

from reviewapp.accounts.models import Matter
from reviewapp.audit.recorders import audit_acting_for_set
from reviewapp.contracts.models import Contract
from reviewapp.reviews.acting_for.selectors import (
    contract_parties,
    matter_parties,
    user_may_choose_party,
)
from reviewapp.reviews.acting_for.signals import acting_for_changed_announce
from reviewapp.text.facts.parties import Party, party_named, same_name

MAX_ROLE_CHARS = 80


class ActingForRefused(ValueError):
    """A party that cannot be chosen; the message says why, to the lawyer."""


@transaction.atomic
def contract_acting_for_set(
    *, contract: Contract, name: str, role: str, set_by: Any
) -> Party | None:
    """Act for the contract's party ``name`` in this contract (blank: the matter's choice).

    ``role`` may be blank (the role the contract defines is taken) or that role; a party the
    contract defines no role for may be given one. Raises PermissionDenied or ActingForRefused.
    """
    _require_chooser(set_by, contract.matter_id)
    party = _chosen(contract_parties(contract=contract), name, role)
    locked = Contract.objects.select_for_update().get(pk=contract.pk)
    previous = locked.acting_for_name
    chosen = (party.name, party.role) if party else ("", "")
    if (locked.acting_for_name, locked.acting_for_role) != chosen:
        locked.acting_for_name, locked.acting_for_role = chosen
        locked.save(update_fields=["acting_for_name", "acting_for_role", "updated_at"])
        audit_acting_for_set(
            matter=contract.matter,
            contract=locked,
            user=set_by,
            name=chosen[0],
            role=chosen[1],
            previous_name=previous,
        )
        acting_for_changed_announce(contract_ids=[contract.pk], set_by=set_by)
    contract.acting_for_name, contract.acting_for_role = chosen
    return party


@transaction.atomic
def matter_acting_for_set(*, matter: Matter, name: str, role: str, set_by: Any) -> Party | None:
    """Act for ``name`` in every contract of the matter that names it and has no choice of its
    own (blank: no default). The party must be one a contract of the matter names."""
    _require_chooser(set_by, matter.pk)
    party = _chosen(matter_parties(matter=matter), name, role)
    locked = Matter.objects.select_for_update().get(pk=matter.pk)
    previous = locked.acting_for_name
    chosen = (party.name, party.role) if party else ("", "")
    if (locked.acting_for_name, locked.acting_for_role) != chosen:
        locked.acting_for_name, locked.acting_for_role = chosen
        locked.save(update_fields=["acting_for_name", "acting_for_role"])
        audit_acting_for_set(
            matter=locked, user=set_by, name=chosen[0], role=chosen[1], previous_name=previous
        )
        following = Contract.objects.filter(matter=locked, acting_for_name="")
        acting_for_changed_announce(
            contract_ids=list(following.values_list("pk", flat=True)), set_by=set_by
        )
    matter.acting_for_name, matter.acting_for_role = chosen
    return party


def _require_chooser(user: Any, matter_id: int) -> None:
    if not user_may_choose_party(user=user, matter_id=matter_id):
        raise PermissionDenied("Only a lawyer or admin of the matter can choose the party.")


def _chosen(parties: Sequence[Party], name: str, role: str) -> Party | None:
    name, role = " ".join(name.split()), " ".join(role.split())
    if not name:
        return None
    party = party_named(parties, name)
    if party is None:
        if not parties:
            raise ActingForRefused(_("No parties have been read from this contract yet."))
        raise ActingForRefused(
            _("“%(name)s” is not a party of this contract. Choose one of: %(parties)s.")
            % {"name": name[:200], "parties": "; ".join(p.shown() for p in parties)}
        )
    if not role or same_name(role, party.role):
        return party
    if party.role:
        raise ActingForRefused(
            _("The contract defines %(name)s as “%(role)s”, not “%(given)s”.")
            % {"name": party.name, "role": party.role, "given": role[:MAX_ROLE_CHARS]}
        )
    return Party(party.name, role[:MAX_ROLE_CHARS])
