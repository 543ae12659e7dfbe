"""Choosing the party the firm acts for: only a party of the contract, only by its lawyers and
admins, audited; a contract's choice wins over the matter's."""

import pytest
from django.core.exceptions import PermissionDenied

from reviewapp.audit.models import AuditAction, AuditEvent
from reviewapp.contracts.models import Contract
from reviewapp.reviews.acting_for.selectors import acting_party, acting_sides, contract_parties
from reviewapp.reviews.acting_for.services import (
    ActingForRefused,
    contract_acting_for_set,
    matter_acting_for_set,
)
from reviewapp.reviews.services import review_scan
from reviewapp.text.facts.parties import Party
from tests.factories import ingested_contract

pytestmark = pytest.mark.django_db

BOREALIS = Party("Borealis Retail Ltd.", "Buyer")
ACME = Party("Acme Widgets Inc.", "Seller")


def test_the_choices_are_the_contracts_parties_with_their_defined_roles(supply, zh_supply):
    assert contract_parties(contract=supply) == [BOREALIS, ACME]
    assert contract_parties(contract=zh_supply) == [
        Party("北京北极星零售有限公司", "甲方"),
        Party("上海顶点制造有限公司", "乙方"),
    ]


def test_until_a_party_is_chosen_the_contract_acts_for_no_one(supply):
    assert acting_party(supply) is None
    assert acting_sides(supply) is None


def test_a_lawyer_chooses_a_party_by_its_name_and_gets_its_role(supply, lawyer):
    party = contract_acting_for_set(
        contract=supply, name="  borealis retail  ltd. ", role="", set_by=lawyer
    )
    assert party == BOREALIS
    stored = Contract.objects.get(pk=supply.pk)
    assert (stored.acting_for_name, stored.acting_for_role) == ("Borealis Retail Ltd.", "Buyer")
    sides = acting_sides(stored)
    assert sides is not None and (sides.client, sides.counterparty) == (BOREALIS, ACME)


def test_the_choice_is_audited_without_the_partys_name(supply, lawyer):
    contract_acting_for_set(contract=supply, name="Acme Widgets Inc.", role="", set_by=lawyer)
    event = AuditEvent.objects.get(action=AuditAction.CONTRACT_ACTING_FOR_SET)
    assert event.actor == lawyer.username and event.target_id == str(supply.pk)
    assert event.data["role"] == "Seller" and event.data["cleared"] is False
    assert "Acme" not in str(event.data)


def test_a_name_that_is_no_party_of_the_contract_is_refused(supply, lawyer):
    with pytest.raises(ActingForRefused, match="not a party of this contract"):
        contract_acting_for_set(contract=supply, name="Globex Corp.", role="", set_by=lawyer)
    assert Contract.objects.get(pk=supply.pk).acting_for_name == ""
    assert not AuditEvent.objects.filter(action=AuditAction.CONTRACT_ACTING_FOR_SET).exists()


def test_a_role_the_contract_does_not_give_the_party_is_refused(supply, lawyer):
    with pytest.raises(ActingForRefused, match="defines Borealis Retail Ltd. as “Buyer”"):
        contract_acting_for_set(
            contract=supply, name="Borealis Retail Ltd.", role="Seller", set_by=lawyer
        )


def test_a_reviewer_may_not_choose(supply, reviewer):
    with pytest.raises(PermissionDenied):
        contract_acting_for_set(
            contract=supply, name="Borealis Retail Ltd.", role="", set_by=reviewer
        )


def test_an_admin_of_the_matter_may_choose(supply, admin):
    assert (
        contract_acting_for_set(contract=supply, name="Acme Widgets Inc.", role="", set_by=admin)
        == ACME
    )


def test_the_matters_party_stands_where_the_contract_names_it_and_the_contract_wins(
    matter, supply, lawyer, django_capture_on_commit_callbacks
):
    other = ingested_contract(
        matter=matter,
        text=supply.text.replace("Buyer", "Customer").replace("Acme Widgets", "Zenith"),
        name="other.txt",
    )
    stranger = ingested_contract(
        matter=matter,
        text=supply.text.replace("Borealis Retail Ltd.", "Nordic Shops AB"),
        name="stranger.txt",
    )
    # the matter's choices come from its contracts' drafts: give the first one its draft
    with django_capture_on_commit_callbacks(execute=True):
        review_scan(contract_id=supply.pk)
    matter_acting_for_set(matter=matter, name="Borealis Retail Ltd.", role="", set_by=lawyer)
    assert AuditEvent.objects.filter(action=AuditAction.MATTER_ACTING_FOR_SET).count() == 1
    assert acting_party(Contract.objects.get(pk=other.pk)) == Party(
        "Borealis Retail Ltd.", "Customer"
    )
    assert acting_party(Contract.objects.get(pk=stranger.pk)) is None  # not one of its parties
    contract_acting_for_set(contract=other, name="Zenith Inc.", role="", set_by=lawyer)
    assert acting_party(Contract.objects.get(pk=other.pk)) == Party("Zenith Inc.", "Seller")


def test_a_matter_default_must_be_a_party_of_one_of_its_contracts(matter, supply, lawyer):
    with pytest.raises(ActingForRefused):
        matter_acting_for_set(matter=matter, name="Globex Corp.", role="", set_by=lawyer)


def test_a_blank_name_clears_the_contracts_choice(supply, lawyer):
    contract_acting_for_set(contract=supply, name="Acme Widgets Inc.", role="", set_by=lawyer)
    assert contract_acting_for_set(contract=supply, name="", role="", set_by=lawyer) is None
    assert acting_party(Contract.objects.get(pk=supply.pk)) is None
    cleared = AuditEvent.objects.filter(action=AuditAction.CONTRACT_ACTING_FOR_SET).last()
    assert cleared is not None and cleared.data["cleared"] is True
