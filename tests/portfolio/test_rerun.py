"""Re-running a review on a newer playbook: the earlier register kept, what changed shown,
lawyers' decisions not thrown away, a whole matter as tasks with progress, and who may."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviewapp.audit.models import AuditAction, AuditEvent
from reviewapp.contracts.models import PassageState
from reviewapp.portfolio.comparison import rerun_comparison
from reviewapp.portfolio.matter_rerun import (
    matter_rerun_item_run,
    matter_rerun_start,
    rerun_progress,
)
from reviewapp.portfolio.models import MatterRerunItem, RerunItemStatus
from reviewapp.portfolio.rerun import RerunRefused, contract_rerun
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.realtime.models import Event
from reviewapp.reviews.models import Draft, DraftStatus, Review, ReviewSnapshot, RuleFiring
from reviewapp.rules.services import playbook_version_create
from tests.factories import STRICT
from tests.portfolio.conftest import decide

pytestmark = pytest.mark.django_db

# v2: MFN is gone, assignment is now high, and notices are a new concern.
NEWER = """
name: strict
version: "2"
language: en
rules:
  - id: en.strict.assignment
    category: Anti-Assignment
    severity: high
    action: verify
    patterns: ['assign']
  - id: en.strict.notices
    category: Notice
    severity: low
    action: verify
    patterns: ['notices shall']
"""
# v2b: the same rules as v1 but assignment is more severe; nothing new on the MFN passage.
SAME_FLAGS = STRICT.replace("severity: medium", "severity: high").replace('"1"', '"2"')
# v2c: a new concern raised on the MFN passage itself.
NEW_ON_MFN = (
    STRICT
    + """  - id: en.strict.pricing
    category: Price Restrictions
    severity: high
    action: verify
    patterns: ['pricing']
"""
)


def rerun(contract, user, capture):
    with capture(execute=True):
        return contract_rerun(contract_id=contract.pk, user=user)


def mfn_passage(contract):
    return contract.passages.get(text__icontains="most favored")


def test_a_rerun_keeps_the_earlier_register_and_shows_what_changed(
    reviewer, strict_playbook, review_contract, django_capture_on_commit_callbacks
):
    contract = review_contract()
    mfn = mfn_passage(contract)
    assert QueueItem.objects.filter(passage=mfn, status=ItemStatus.OPEN).exists()
    playbook_version_create(playbook=strict_playbook, source=NEWER)
    snapshot = rerun(contract, reviewer, django_capture_on_commit_callbacks)

    review = Review.objects.get(contract=contract)
    assert review.playbook_version.number == 3  # copy (1), STRICT (2), NEWER (3)
    assert snapshot.playbook_label.endswith("@2") and snapshot.rerun_playbook_label.endswith("@3")
    before = {entry["index"]: entry for entry in snapshot.passages}
    assert before[mfn.index]["state"] == PassageState.REJECTED
    assert before[mfn.index]["flags"] == {"Most Favored Nation": "critical"}

    comparison = rerun_comparison(snapshot=snapshot)
    assert [(c.category, c.after) for c in comparison.newly_flagged] == [("Notice", "low")]
    assert [(c.passage_index, c.category) for c in comparison.no_longer_flagged] == [
        (mfn.index, "Most Favored Nation")
    ]
    assert [(c.category, c.before, c.after) for c in comparison.severity_changed] == [
        ("Anti-Assignment", "medium", "high")
    ]
    mfn.refresh_from_db()
    assert mfn.state == PassageState.CONFIRMED
    # The rule that rejected it is gone: its open item is withdrawn and the review unblocked.
    assert not QueueItem.objects.filter(passage=mfn).exclude(status=ItemStatus.DONE).exists()
    assert review.status != "BLOCKED"
    assert not RuleFiring.objects.filter(review=review, rule_id="en.strict.mfn").exists()
    transition = mfn.transitions.order_by("-id").first()
    assert (transition.from_state, transition.to_state) == ("REJECTED", "CONFIRMED")
    assert "re-run on" in transition.reason
    assert AuditEvent.objects.filter(action=AuditAction.REVIEW_RERUN).count() == 1


def test_a_lawyers_decision_stands_when_the_new_playbook_flags_the_passage_the_same_way(
    reviewer, lawyer, strict_playbook, review_contract, django_capture_on_commit_callbacks
):
    contract = review_contract()
    decide(contract.review, lawyer, rule_id="en.strict.mfn", decision="accept", note="Agreed.")
    mfn = mfn_passage(contract)
    mfn.refresh_from_db()
    assert mfn.state == PassageState.CONFIRMED
    playbook_version_create(playbook=strict_playbook, source=SAME_FLAGS)
    snapshot = rerun(contract, reviewer, django_capture_on_commit_callbacks)

    mfn.refresh_from_db()
    assert mfn.state == PassageState.CONFIRMED  # the scan alone would have REJECTED it again
    assert not QueueItem.objects.filter(passage=mfn).exclude(status=ItemStatus.DONE).exists()
    assert Review.objects.get(contract=contract).status != "BLOCKED"
    comparison = rerun_comparison(snapshot=snapshot)
    assert mfn.index in comparison.decisions_kept
    assert not comparison.newly_flagged and not comparison.no_longer_flagged


def test_a_new_concern_on_a_decided_passage_goes_through_the_new_scan(
    reviewer, lawyer, strict_playbook, review_contract, django_capture_on_commit_callbacks
):
    contract = review_contract()
    decide(contract.review, lawyer, rule_id="en.strict.mfn", decision="accept", note="Agreed.")
    playbook_version_create(playbook=strict_playbook, source=NEW_ON_MFN)
    snapshot = rerun(contract, reviewer, django_capture_on_commit_callbacks)

    mfn = mfn_passage(contract)
    assert mfn.state == PassageState.REJECTED  # the MFN rule rejects it again, for a lawyer
    assert QueueItem.objects.filter(passage=mfn, status=ItemStatus.OPEN).exists()
    comparison = rerun_comparison(snapshot=snapshot)
    assert ("Price Restrictions", mfn.index) in {
        (c.category, c.passage_index) for c in comparison.newly_flagged
    }
    assert mfn.index not in comparison.decisions_kept


def test_nothing_to_rerun_on_the_playbook_already_in_force(reviewer, review_contract):
    contract = review_contract()
    with pytest.raises(RerunRefused) as refused:
        contract_rerun(contract_id=contract.pk, user=reviewer)
    assert refused.value.code == "CURRENT"
    assert not ReviewSnapshot.objects.exists()


def test_no_rerun_while_the_draft_is_still_being_written(
    reviewer, strict_playbook, review_contract
):
    contract = review_contract()
    Draft.objects.filter(review__contract=contract).update(status=DraftStatus.STREAMING)
    playbook_version_create(playbook=strict_playbook, source=NEWER)
    with pytest.raises(RerunRefused) as refused:
        contract_rerun(contract_id=contract.pk, user=reviewer)
    assert refused.value.code == "BUSY"
    assert not ReviewSnapshot.objects.exists()


def test_a_matter_rerun_runs_a_task_per_contract_with_progress(
    matter, admin, strict_playbook, review_contract, django_capture_on_commit_callbacks
):
    first, second = (
        review_contract(name="a.txt"),
        review_contract(text="1. Notices. Notices shall be in writing.\n", name="b.txt"),
    )
    playbook_version_create(playbook=strict_playbook, source=NEWER)
    with django_capture_on_commit_callbacks(execute=True):
        run = matter_rerun_start(matter=matter, user=admin)
    progress = rerun_progress(rerun_id=run.pk)
    assert (progress.total, progress.done, progress.failed, progress.complete) == (2, 2, 0, True)
    items = MatterRerunItem.objects.filter(rerun=run)
    assert {item.contract_id for item in items} == {first.pk, second.pk}
    assert all(item.snapshot_id for item in items)
    assert AuditEvent.objects.filter(action=AuditAction.MATTER_RERUN).count() == 1
    last = Event.objects.filter(matter_id=matter.pk, type="rerun.progress").last()
    assert (last.payload["finished"], last.payload["total"]) == (2, 2)
    # Delivered twice, a task counts once.
    assert matter_rerun_item_run(item_id=items[0].pk) == RerunItemStatus.DONE
    assert rerun_progress(rerun_id=run.pk).finished == 2


def test_who_may_rerun(
    client, matter, reviewer, lawyer, make_user, strict_playbook, review_contract
):
    contract = review_contract()
    playbook_version_create(playbook=strict_playbook, source=NEWER)
    contract_url = reverse("portfolio-contract-rerun", args=[contract.pk])
    matter_url = reverse("portfolio-matter-rerun", args=[matter.pk])
    client.force_login(make_user("otto"))
    assert client.post(contract_url).status_code == 404
    assert client.post(matter_url).status_code == 404
    client.force_login(lawyer)
    assert client.post(contract_url).status_code == 403
    assert client.post(matter_url).status_code == 403
    client.force_login(reviewer)
    response = client.post(contract_url)
    snapshot = ReviewSnapshot.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("portfolio-comparison", args=[contract.pk, snapshot.pk])
    page = client.get(response["Location"])
    assert page.status_code == 200
    html = page.content.decode()
    assert "Most Favored Nation" in html and 'id="no-longer-flagged"' in html
    (row,) = client.get(reverse("api-matter-grid", args=[matter.pk])).json()["rows"]
    assert row["comparison_url"] == response["Location"]  # the grid links to what changed
    client.force_login(lawyer)  # members read the comparison
    assert client.get(response["Location"]).status_code == 200
