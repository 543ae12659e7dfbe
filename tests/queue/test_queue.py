import pytest
from django.core.exceptions import PermissionDenied

from reviewapp.accounts.models import Role
from reviewapp.contracts.models import PassageState
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.queue.services import QueueConflict, queue_item_claim, queue_item_decide
from reviewapp.reviews.models import ActorKind, ReviewStatus
from reviewapp.reviews.services import passage_transition, review_scan
from tests.factories import CONTRACT, STRICT, active_playbook, ingested_contract

pytestmark = pytest.mark.django_db


@pytest.fixture
def lawyers(make_user, matter):
    from reviewapp.accounts.models import Membership

    lee, liu = make_user("lee"), make_user("liu")
    for user in (lee, liu):
        Membership.objects.create(user=user, matter=matter, role=Role.LAWYER)
    return lee, liu


@pytest.fixture
def review(matter):
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text=CONTRACT)
    return review_scan(contract_id=contract.pk, enqueue=False)


def test_rule_rejection_opens_a_critical_item_and_blocks(review):
    item = QueueItem.objects.get(review=review)
    assert item.state == PassageState.REJECTED
    assert item.severity == "critical"
    assert item.due_at > item.created_at
    assert review.status == ReviewStatus.BLOCKED


def test_second_lawyer_loses_the_claim(review, lawyers):
    lee, liu = lawyers
    item = QueueItem.objects.get(review=review)
    queue_item_claim(item_id=item.pk, user=lee)
    with pytest.raises(QueueConflict):
        queue_item_claim(item_id=item.pk, user=liu)
    item.refresh_from_db()
    assert item.claimed_by == lee and item.status == ItemStatus.CLAIMED


def test_reviewer_cannot_claim(review, reviewer):
    item = QueueItem.objects.get(review=review)
    with pytest.raises(PermissionDenied):
        queue_item_claim(item_id=item.pk, user=reviewer)


def test_rejecting_a_rejection_unblocks_the_review(review, lawyers):
    lee, _ = lawyers
    item = QueueItem.objects.get(review=review)
    queue_item_claim(item_id=item.pk, user=lee)
    queue_item_decide(item_id=item.pk, user=lee, decision="reject", note="Unacceptable MFN.")
    review.refresh_from_db()
    assert review.status == ReviewStatus.IN_REVIEW  # the assignment clause is still pending


def test_overriding_a_rejection_needs_a_note(review, lawyers):
    lee, _ = lawyers
    item = QueueItem.objects.get(review=review)
    queue_item_claim(item_id=item.pk, user=lee)
    with pytest.raises(QueueConflict, match="justification"):
        queue_item_decide(item_id=item.pk, user=lee, decision="accept")
    queue_item_decide(item_id=item.pk, user=lee, decision="accept", note="Mutual; fine.")
    item.passage.refresh_from_db()
    assert item.passage.state == PassageState.CONFIRMED


def _offline_engine_gives_up(review) -> None:
    """The pending passage goes to a lawyer, as when no confirm_if / reject_if settles it."""
    pending = review.contract.passages.get(state=PassageState.PENDING)
    passage_transition(
        passage_id=pending.pk,
        to_state=PassageState.NEEDS_HUMAN_REVIEW,
        actor_kind=ActorKind.ENGINE,
        actor="offline",
        reason="NO_OFFLINE_VERDICT",
    )


def test_needs_human_review_opens_an_item_and_a_decision_completes_the_review(review, lawyers):
    lee, _ = lawyers
    _offline_engine_gives_up(review)
    for item in QueueItem.objects.filter(review=review):
        queue_item_claim(item_id=item.pk, user=lee)
        queue_item_decide(item_id=item.pk, user=lee, decision="reject", note="No.")
    review.refresh_from_db()
    assert review.status == ReviewStatus.COMPLETE


def test_queue_page_claim_and_decide(client, review, lawyers):
    lee, liu = lawyers
    item = QueueItem.objects.get(review=review)
    client.force_login(lee)
    page = client.get("/queue/").content.decode()
    assert "most favored nation" in page and 'data-action="claim"' in page
    client.post(f"/queue/{item.pk}/claim/")
    assert 'data-action="accept"' in client.get("/queue/").content.decode()
    client.force_login(liu)
    assert "Claimed by lee" in client.get("/queue/").content.decode()
    client.force_login(lee)
    response = client.post(f"/queue/{item.pk}/decide/", {"decision": "accept"}, follow=True)
    assert "justification" in response.content.decode()
    client.post(f"/queue/{item.pk}/decide/", {"decision": "reject", "note": "Keep it out."})
    item.refresh_from_db()
    assert item.status == ItemStatus.DONE and item.decision == "reject"


def test_overdue_items_escalate_once_and_admins_are_mailed(
    review, make_user, mailoutbox, django_capture_on_commit_callbacks
):
    from datetime import timedelta

    from django.utils import timezone

    from reviewapp.accounts.models import Membership
    from reviewapp.queue.escalation import queue_escalate_overdue

    boss = make_user("boss", email="boss@firm.example")
    Membership.objects.create(user=boss, matter=review.contract.matter, role=Role.ADMIN)
    pending = review.contract.passages.get(state=PassageState.PENDING)
    passage_transition(
        passage_id=pending.pk,
        to_state=PassageState.NEEDS_HUMAN_REVIEW,
        actor_kind=ActorKind.ENGINE,
        actor="offline",
    )
    item = QueueItem.objects.get(passage=pending)
    QueueItem.objects.filter(pk=item.pk).update(due_at=timezone.now() - timedelta(minutes=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert queue_escalate_overdue() == [item.pk]
    item.refresh_from_db()
    assert item.escalated_at is not None and item.severity == "high"
    assert queue_escalate_overdue() == []
    assert [m.to for m in mailoutbox] == [["boss@firm.example"]]


def test_queue_page_explains_why_an_item_is_there_in_words(client, review, lawyers):
    lee, _ = lawyers
    _offline_engine_gives_up(review)
    client.force_login(lee)
    page = client.get("/queue/").content.decode()
    assert "could not settle it from the rule" in page
    assert "NO_OFFLINE_VERDICT" not in page
    page = client.get("/queue/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "离线引擎无法根据规则的措辞作出判定" in page


HEADING_RULE = """
name: strict
version: "1"
language: en
rules:
  - id: en.test.exclusivity-heading
    category: Exclusivity
    severity: high
    action: human
    scope: heading
    patterns: ['exclusiv\\w*[^>]*$']
"""


def test_a_heading_match_shows_the_heading_not_the_whole_passage(client, matter, lawyers):
    active_playbook(organisation=matter.organisation, source=HEADING_RULE)
    text = (
        "1. Definitions.\n\nTerms mean what they say.\n\n"
        "2. Exclusivity\n\nSupplier sells to Buyer only.\n"
    )
    contract = ingested_contract(matter=matter, text=text)
    review = review_scan(contract_id=contract.pk, enqueue=False)
    from reviewapp.reviews.model_work import verifications_run
    from reviewapp.reviews.models import Verification

    pending = list(Verification.objects.filter(review=review).values_list("pk", flat=True))
    verifications_run(review_id=review.pk, verification_ids=pending)
    client.force_login(lawyers[0])
    page = client.get("/queue/").content.decode()
    assert "matched the heading" in page
    assert "<mark>Supplier sells to Buyer only.</mark>" not in page


def test_a_long_queue_is_paged_and_an_action_returns_to_its_page(
    client, review, lawyers, django_assert_max_num_queries
):
    from reviewapp.queue.services import queue_item_open
    from reviewapp.queue.views import QUEUE_PAGE_SIZE

    lee, _ = lawyers
    text = "".join(f"{n}. Clause {n}. The parties agree on point {n}.\n\n" for n in range(1, 70))
    contract = ingested_contract(matter=review.contract.matter, text=text, name="long.txt")
    for passage in contract.passages.all():
        queue_item_open(passage=passage, review=review, reason="NO_OFFLINE_VERDICT")
    total = QueueItem.objects.filter(review=review).count()
    assert total > QUEUE_PAGE_SIZE
    client.force_login(lee)
    with django_assert_max_num_queries(6 * QUEUE_PAGE_SIZE + 20):
        first = client.get("/queue/").content.decode()
    assert first.count('class="card queue-item') == QUEUE_PAGE_SIZE
    assert f"Items 1–{QUEUE_PAGE_SIZE} of {total}" in first and 'rel="next"' in first
    pages = -(-total // QUEUE_PAGE_SIZE)
    final = client.get(f"/queue/?page={pages}").content.decode()
    assert final.count('class="card queue-item') == total - (pages - 1) * QUEUE_PAGE_SIZE
    assert 'rel="next"' not in final
    last = QueueItem.objects.filter(review=review).order_by("-pk").first()
    response = client.post(f"/queue/{last.pk}/claim/")
    assert response["Location"] == f"/queue/?item={last.pk}#item-{last.pk}"
    page = client.get(response["Location"]).content.decode()
    assert f'id="item-{last.pk}"' in page
    assert client.get("/queue/?page=999").status_code == 200


def test_the_filters_name_categories_severities_and_states_in_the_readers_language(
    client, review, lawyers
):
    lee, _ = lawyers
    client.force_login(lee)
    client.cookies["django_language"] = "zh-hans"
    page = client.get("/queue/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    filters = page[page.index('name="category"') : page.index('name="severity"') + 2000]
    assert "Most Favored Nation (" not in filters and "critical (" not in filters
    assert "最惠国待遇" in filters or "最惠" in filters
