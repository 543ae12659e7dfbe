"""The second-stage check in a review: dropped categories, passages it settles, a lawyer
reopening one, and what `manage.py review` says of it."""

from __future__ import annotations

import numpy as np
import pytest

from reviewapp.contracts.models import PassageState
from reviewapp.queue.models import QueueItem
from reviewapp.reviews import services as review_services
from reviewapp.reviews.model_work import verifications_run
from reviewapp.reviews.models import ActorKind, PassageTransition, RuleFiring, Verification
from reviewapp.reviews.reopen import ReopenRefused, passage_flag_reopen
from reviewapp.reviews.review_output import document_record
from reviewapp.reviews.services import review_scan
from reviewapp.text.check.model import N_FEATURES, CheckModel
from tests.factories import active_playbook, ingested_contract

pytestmark = pytest.mark.django_db

PLAYBOOK = """
name: checked
version: "1"
language: en
check:
  enabled: true
rules:
  - id: en.test.assignment
    category: Anti-Assignment
    severity: medium
    action: verify
    patterns: ['assign']
    question: Can the counterparty assign without our client's consent?
  - id: en.test.audit
    category: Audit Rights
    severity: high
    action: verify
    patterns: ['audit']
    question: May the counterparty audit our client's books, and how often?
  - id: en.test.audit-context
    category: Revenue/Profit Sharing
    severity: low
    action: verify
    only_with: [Audit Rights]
    patterns: ['royalt']
    question: Is a share of revenue payable?
"""

CONTRACT = """1. Assignment. This clause mentions assignment only in passing.

2. Audit. Supplier may audit the royalty records of Distributor once a year.

3. Notices. Notices shall be in writing.
"""


def _check(thresholds: dict[str, float], score: float = 0.2) -> CheckModel:
    """A check that scores every candidate ``score`` (no features weigh): the thresholds say
    which categories stand."""
    intercept = float(np.log(score / (1 - score)))
    zeros = np.zeros(N_FEATURES, dtype=np.float32)
    return CheckModel(zeros, zeros.copy(), intercept, (1.0, 0.0), thresholds, {"name": "t"})


@pytest.fixture
def reviewed(matter, monkeypatch):
    active_playbook(organisation=matter.organisation, source=PLAYBOOK, name="checked")
    check = _check({"Anti-Assignment": 0.5, "Audit Rights": 0.1, "Revenue/Profit Sharing": 0.5})
    monkeypatch.setattr(
        review_services, "check_for", lambda language, **_: (check, "check-en@test")
    )
    contract = ingested_contract(matter=matter, text=CONTRACT)
    review = review_scan(contract_id=contract.pk, enqueue=False)
    for verification in Verification.objects.filter(review=review, status="QUEUED"):
        verifications_run(review_id=review.pk, verification_ids=[verification.pk])
    return contract, review


def test_a_passage_whose_every_category_fails_is_settled_by_the_check(reviewed):
    contract, review = reviewed
    assignment = contract.passages.get(text__startswith="1.")
    assert assignment.state == PassageState.CONFIRMED
    verification = Verification.objects.get(passage=assignment)
    assert verification.reason == "CATEGORY_NOT_PRESENT"
    assert verification.model == "check-en@test"
    assert "Anti-Assignment 0.20 < 0.50" in verification.rationale
    moves = list(PassageTransition.objects.filter(passage=assignment).order_by("pk"))
    assert [(m.from_state, m.to_state) for m in moves] == [
        (None, PassageState.PENDING),
        (PassageState.PENDING, PassageState.CONFIRMED),
    ]
    assert moves[1].actor_kind == ActorKind.ENGINE and moves[1].actor == "check-en@test"
    assert review.check_version == "check-en@test"
    assert not QueueItem.objects.filter(passage=assignment).exists()


def test_a_passage_keeps_only_the_categories_that_pass(reviewed):
    contract, _ = reviewed
    audit = contract.passages.get(text__startswith="2.")
    assert audit.state == PassageState.NEEDS_HUMAN_REVIEW
    firings = {f.category: f for f in RuleFiring.objects.filter(passage=audit)}
    assert not firings["Audit Rights"].dropped
    assert firings["Revenue/Profit Sharing"].dropped  # the secondary rule's category failed
    assert firings["Audit Rights"].check_score == pytest.approx(0.2)
    verification = Verification.objects.get(passage=audit)
    assert verification.rule_ids == ["en.test.audit"]  # the verifier is asked what stands
    item = QueueItem.objects.get(passage=audit)
    assert item.category == "Audit Rights"


def test_review_record_gives_standing_and_trigger_categories(reviewed):
    contract, _ = reviewed
    record = document_record(document="c.txt", contract=contract, with_text=False, timings_ms={})
    by_index = {p["index"]: p for p in record["passages"]}
    audit = next(p for p in by_index.values() if "Audit Rights" in p["trigger_categories"])
    assert audit["categories"] == ["Audit Rights"]
    assert audit["trigger_categories"] == ["Audit Rights", "Revenue/Profit Sharing"]
    assert audit["dropped_categories"] == ["Revenue/Profit Sharing"]
    settled = next(p for p in by_index.values() if p["trigger_categories"] == ["Anti-Assignment"])
    assert settled["categories"] == [] and settled["state"] == PassageState.CONFIRMED
    assert settled["verification"]["reason"] == "CATEGORY_NOT_PRESENT"
    assert record["check_version"] == "check-en@test"


def test_a_lawyer_reopens_a_settled_flag_and_it_reaches_the_queue(reviewed, lawyer):
    contract, _ = reviewed
    passage = contract.passages.get(text__startswith="1.")
    passage_flag_reopen(passage_id=passage.pk, user=lawyer)
    passage.refresh_from_db()
    assert passage.state == PassageState.NEEDS_HUMAN_REVIEW
    last = PassageTransition.objects.filter(passage=passage).latest("pk")
    assert (last.from_state, last.actor_kind, last.actor) == (
        PassageState.CONFIRMED,
        ActorKind.USER,
        lawyer.username,
    )
    assert last.reason == "FLAG_REOPENED"
    item = QueueItem.objects.get(passage=passage)
    assert item.category == "Anti-Assignment"
    assert not RuleFiring.objects.filter(passage=passage, dropped=True).exists()
    with pytest.raises(ReopenRefused):  # once reopened it is no longer the check's
        passage_flag_reopen(passage_id=passage.pk, user=lawyer)


def test_a_reviewer_cannot_reopen_and_a_lawyer_cannot_reopen_other_passages(
    reviewed, reviewer, lawyer
):
    contract, _ = reviewed
    settled = contract.passages.get(text__startswith="1.")
    with pytest.raises(ReopenRefused, match="lawyers"):
        passage_flag_reopen(passage_id=settled.pk, user=reviewer)
    notices = contract.passages.get(text__startswith="3.")  # no rule fired: nothing to reopen
    with pytest.raises(ReopenRefused, match="check settled"):
        passage_flag_reopen(passage_id=notices.pk, user=lawyer)


def test_review_page_lists_the_settled_flags_and_reopens_by_post(reviewed, client, lawyer):
    contract, _ = reviewed
    client.force_login(lawyer)
    page = client.get(f"/contracts/{contract.pk}/").content.decode()
    assert "1 flag settled by the check" in page
    assert "Reopen the flag" in page
    passage = contract.passages.get(text__startswith="1.")
    response = client.post(f"/contracts/{contract.pk}/passages/{passage.index}/reopen/")
    assert response.status_code == 302
    passage.refresh_from_db()
    assert passage.state == PassageState.NEEDS_HUMAN_REVIEW


def test_queue_item_asks_one_question_with_the_rest_behind_why(reviewed, client, lawyer):
    contract, _ = reviewed
    client.force_login(lawyer)
    page = client.get("/queue/").content.decode()
    assert page.count('data-role="question"') == 1
    assert "May the counterparty audit" in page
    assert "Is a share of revenue payable?" not in page  # its category was dropped
    assert "dropped by the check:" in page


def test_a_rerun_with_a_new_check_applies_it(reviewed, reviewer, monkeypatch):
    from reviewapp.portfolio.rerun import contract_rerun
    from reviewapp.reviews.inline import review_model_work_run

    contract, review = reviewed
    review_model_work_run(review_id=review.pk)  # the draft: a re-run waits for model work
    looser = _check({"Anti-Assignment": 0.1, "Audit Rights": 0.1, "Revenue/Profit Sharing": 0.5})
    monkeypatch.setattr(review_services, "check_for", lambda language, **_: (looser, "check-en@v2"))
    contract_rerun(contract_id=contract.pk, user=reviewer)
    for verification in Verification.objects.filter(review=review, status="QUEUED"):
        verifications_run(review_id=review.pk, verification_ids=[verification.pk])
    review.refresh_from_db()
    assert review.check_version == "check-en@v2"
    assignment = contract.passages.get(text__startswith="1.")
    assert assignment.state == PassageState.NEEDS_HUMAN_REVIEW  # the new check keeps it
    firing = RuleFiring.objects.get(passage=assignment)
    assert not firing.dropped and firing.check_threshold == pytest.approx(0.1)
    audit = contract.passages.get(text__startswith="2.")
    assert RuleFiring.objects.get(passage=audit, category="Revenue/Profit Sharing").dropped
