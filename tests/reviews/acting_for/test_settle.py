"""With the offline engine, a playbook that settles a clause which only protects the client
confirms it (reason PROTECTS_CLIENT) with the passage's own words quoted; a ``human`` or
``reject`` rule, a category a lawyer must see, or a party not chosen yet leaves it to a lawyer."""

import pytest

from reviewapp.contracts.models import PassageState
from reviewapp.queue.models import QueueItem
from reviewapp.reviews.acting_for.services import contract_acting_for_set
from reviewapp.reviews.models import Verification
from reviewapp.reviews.reasons import PROTECTS_CLIENT
from tests.reviews.acting_for.test_wording import _reviewed

pytestmark = pytest.mark.django_db

PLAYBOOK = """
name: side-settle
version: "1"
language: en
side:
  protects_client: settle
{categories}
rules:
  - id: en.side.exclusivity
    category: Exclusivity
    severity: high
    action: {action}
    patterns: ['shall not sell']
    question: Does the restriction protect our client?
  - id: en.side.payment
    category: Late Payment Interest
    severity: medium
    action: verify
    patterns: ['shall pay']
    question: Can our client pay within the period?
"""
ZH_PLAYBOOK = """
name: side-zh
version: "1"
language: zh
side:
  protects_client: settle
rules:
  - id: zh.side.exclusivity
    category: Exclusivity
    severity: high
    action: verify
    patterns: ['不得向其他']
    question: 该限制是否保护我方？
"""


def _playbook(action: str = "verify", categories: str = "") -> str:
    return PLAYBOOK.format(action=action, categories=categories)


def _exclusivity(contract, words: str = "shall not sell"):
    return contract.passages.get(text__contains=words)


def test_a_clause_that_only_protects_the_client_is_settled_with_its_words_quoted(supply, lawyer):
    contract_acting_for_set(contract=supply, name="Borealis Retail Ltd.", role="", set_by=lawyer)
    _reviewed(supply, _playbook())
    passage = _exclusivity(supply)
    verification = Verification.objects.get(passage=passage)
    assert passage.state == PassageState.CONFIRMED
    assert (verification.outcome, verification.reason) == (PassageState.CONFIRMED, PROTECTS_CLIENT)
    assert verification.quote == (
        "Seller shall not sell the Products to any other retailer in the Territory"
    )
    assert verification.quote in passage.text  # verbatim, character for character
    assert f"“{verification.quote}”" in verification.rationale
    assert "binds only Seller" in verification.rationale
    assert not QueueItem.objects.filter(passage=passage).exists()
    # the clause that binds our client still goes to a lawyer
    assert QueueItem.objects.filter(passage__text__contains="Buyer shall pay").exists()


def test_acting_for_the_bound_party_nothing_is_settled(supply, lawyer):
    contract_acting_for_set(contract=supply, name="Acme Widgets Inc.", role="", set_by=lawyer)
    _reviewed(supply, _playbook())
    assert _exclusivity(supply).state == PassageState.NEEDS_HUMAN_REVIEW
    payment = Verification.objects.get(passage__text__contains="Buyer shall pay")
    assert payment.reason == PROTECTS_CLIENT and payment.quote.startswith("Buyer shall pay")


def test_until_a_party_is_chosen_nothing_is_settled_for_a_side(supply):
    _reviewed(supply, _playbook())
    assert not Verification.objects.filter(reason=PROTECTS_CLIENT).exists()
    assert _exclusivity(supply).state == PassageState.NEEDS_HUMAN_REVIEW


@pytest.mark.parametrize(
    ("action", "state"), [("human", "NEEDS_HUMAN_REVIEW"), ("reject", "REJECTED")]
)
def test_a_human_or_reject_rule_is_never_settled_for_a_side(supply, lawyer, action, state):
    contract_acting_for_set(contract=supply, name="Borealis Retail Ltd.", role="", set_by=lawyer)
    _reviewed(supply, _playbook(action=action))
    assert _exclusivity(supply).state == state
    assert not Verification.objects.filter(
        passage=_exclusivity(supply), reason=PROTECTS_CLIENT
    ).exists()
    assert QueueItem.objects.filter(passage=_exclusivity(supply)).exists()


def test_a_category_the_playbook_keeps_for_a_lawyer_is_not_settled(supply, lawyer):
    contract_acting_for_set(contract=supply, name="Borealis Retail Ltd.", role="", set_by=lawyer)
    _reviewed(supply, _playbook(categories="  categories: {Exclusivity: lower}"))
    item = QueueItem.objects.get(passage=_exclusivity(supply))
    assert item.severity == "medium"  # lowered, not settled


def test_the_review_page_shows_the_settled_clause_in_english_and_chinese(client, supply, lawyer):
    contract_acting_for_set(contract=supply, name="Borealis Retail Ltd.", role="", set_by=lawyer)
    _reviewed(supply, _playbook())
    client.force_login(lawyer)
    english = client.get(f"/contracts/{supply.pk}/").content.decode()
    assert "The clause binds only the counterparty, so it protects our client" in english
    assert "“Seller shall not sell the Products to any other retailer in the Territory”" in english
    chinese = client.get(f"/contracts/{supply.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "该条款仅约束对方，因此保护我方客户" in chinese.content.decode()


def test_a_chinese_clause_that_only_protects_the_client_is_settled(zh_supply, lawyer):
    contract_acting_for_set(
        contract=zh_supply, name="北京北极星零售有限公司", role="", set_by=lawyer
    )
    _reviewed(zh_supply, ZH_PLAYBOOK)
    passage = _exclusivity(zh_supply, "不得向其他")
    verification = Verification.objects.get(passage=passage)
    assert (passage.state, verification.reason) == (PassageState.CONFIRMED, PROTECTS_CLIENT)
    assert verification.quote == "乙方不得向其他零售商供货"
    assert verification.quote in passage.text
