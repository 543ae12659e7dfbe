"""A re-run keeps lawyers' labels: a category called "not this kind of clause" on a passage is
not raised there again, and a clause a lawyer flagged stays flagged."""

from __future__ import annotations

import pytest

from reviewapp.contracts.models import PassageState
from reviewapp.queue.flags import passage_flag_raise
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.reviews.lawyer_labels import categories_standing
from reviewapp.reviews.models import RuleFiring
from reviewapp.rules.services import playbook_version_create
from tests.portfolio.conftest import decide
from tests.portfolio.test_rerun import NEW_ON_MFN, SAME_FLAGS, mfn_passage, rerun

pytestmark = pytest.mark.django_db

MFN = "Most Favored Nation"


def test_a_category_decided_not_this_is_not_raised_again_by_a_rerun(
    reviewer, lawyer, strict_playbook, review_contract, django_capture_on_commit_callbacks
):
    contract = review_contract()
    decide(
        contract.review,
        lawyer,
        rule_id="en.strict.mfn",
        decision="not_this",
        note="A rebate scheme, not an MFN clause.",
    )
    mfn = mfn_passage(contract)
    playbook_version_create(playbook=strict_playbook, source=NEW_ON_MFN)
    rerun(contract, reviewer, django_capture_on_commit_callbacks)

    mfn.refresh_from_db()
    # Without the label the MFN rule would reject it again (test_rerun's new-concern case).
    assert not RuleFiring.objects.filter(passage=mfn, category=MFN).exists()
    assert RuleFiring.objects.filter(passage=mfn, category="Price Restrictions").exists()
    assert mfn.state != PassageState.REJECTED
    assert categories_standing(passage_ids=[mfn.pk])[mfn.pk] == ["Price Restrictions"]


def test_a_false_flag_stays_settled_when_the_new_playbook_flags_the_same(
    reviewer, lawyer, strict_playbook, review_contract, django_capture_on_commit_callbacks
):
    contract = review_contract()
    decide(contract.review, lawyer, rule_id="en.strict.mfn", decision="not_this", note="Rebates.")
    playbook_version_create(playbook=strict_playbook, source=SAME_FLAGS)
    rerun(contract, reviewer, django_capture_on_commit_callbacks)

    mfn = mfn_passage(contract)
    assert mfn.state == PassageState.CONFIRMED
    assert not QueueItem.objects.filter(passage=mfn).exclude(status=ItemStatus.DONE).exists()
    assert categories_standing(passage_ids=[mfn.pk])[mfn.pk] == []


def test_a_lawyer_raised_flag_stays_on_the_passage_through_a_rerun(
    reviewer, lawyer, strict_playbook, review_contract, django_capture_on_commit_callbacks
):
    contract = review_contract()
    law = contract.passages.get(text__icontains="governed by")
    assert law.state == PassageState.CONFIRMED
    item = passage_flag_raise(passage_id=law.pk, user=lawyer, category="Governing Law")
    playbook_version_create(playbook=strict_playbook, source=SAME_FLAGS)
    rerun(contract, reviewer, django_capture_on_commit_callbacks)

    law.refresh_from_db()
    assert law.state == PassageState.NEEDS_HUMAN_REVIEW  # the scan alone would confirm it
    item.refresh_from_db()
    assert item.status == ItemStatus.CLAIMED and item.claimed_by == lawyer
    assert categories_standing(passage_ids=[law.pk])[law.pk] == ["Governing Law"]
