"""The offline engine settles a passage from the rules' confirm_if / reject_if patterns."""

import pytest

from reviewapp.contracts.models import PassageState
from reviewapp.reviews.model_work import verifications_run
from reviewapp.reviews.models import Verification
from reviewapp.reviews.services import review_scan
from tests.factories import active_playbook, ingested_contract

pytestmark = pytest.mark.django_db

PLAYBOOK = """
name: strict
version: "1"
language: en
rules:
  - id: en.test.cap
    category: Cap On Liability
    severity: high
    action: verify
    patterns: ['liability']
    confirm_if: ['shall not exceed the (?:total )?fees']
    reject_if: ['unlimited liability']
  - id: en.test.context
    category: Uncapped Liability
    severity: medium
    action: verify
    only_with: [Cap On Liability]
    patterns: ['liability']
"""


def _settle(matter, text: str) -> Verification:
    active_playbook(organisation=matter.organisation, source=PLAYBOOK)
    review = review_scan(contract_id=ingested_contract(matter=matter, text=text).pk, enqueue=False)
    pending = list(Verification.objects.filter(review=review).values_list("pk", flat=True))
    verifications_run(review_id=review.pk, verification_ids=pending)
    return Verification.objects.get(review=review)


def test_primary_confirm_settles_although_a_secondary_rule_fired(matter):
    verification = _settle(
        matter, "9. Limits. Each party's liability shall not exceed the fees paid in a year.\n"
    )
    assert verification.outcome == PassageState.CONFIRMED
    assert "shall not exceed the fees" in verification.quote
    assert verification.passage.state == PassageState.CONFIRMED


def test_reject_if_rejects(matter):
    verification = _settle(matter, "9. Limits. Supplier accepts unlimited liability for data.\n")
    assert verification.outcome == PassageState.REJECTED


def test_no_pattern_leaves_it_to_a_lawyer(matter):
    verification = _settle(matter, "9. Limits. Liability is as agreed between the parties.\n")
    assert verification.outcome == PassageState.NEEDS_HUMAN_REVIEW
