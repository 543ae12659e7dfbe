"""The queue page: filters that combine and survive a reload, live counts, grouping, bulk
decisions with a confirmation, undo, what a reviewer sees, and a bounded number of queries."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from reviewapp.accounts.models import Membership, Role
from reviewapp.contracts.models import PassageState
from reviewapp.queue.decisions import queue_item_claim
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.reviews.models import ActorKind
from reviewapp.reviews.services import passage_transition, review_scan
from tests.factories import STRICT, active_playbook, ingested_contract
from tests.queue.test_decisions import mfn_contract

pytestmark = pytest.mark.django_db


@pytest.fixture
def lee(make_user, matter):
    user = make_user("lee")
    Membership.objects.create(user=user, matter=matter, role=Role.LAWYER)
    return user


@pytest.fixture
def contracts(matter):
    active_playbook(organisation=matter.organisation, source=STRICT)

    def make(count: int, name: str, *, assignment: bool = False):
        text = mfn_contract(count, assignment=assignment, tag=f" of {name}")
        contract = ingested_contract(matter=matter, text=text, name=name)
        return review_scan(contract_id=contract.pk, enqueue=False)

    return make


# Whatever the number of items: the page's own reads, the session's second-factor check, the
# reader's time zone and the per-category answers each cost a fixed number of queries.
QUERY_BOUND = 32


def _send_pending_to_lawyers(review) -> None:
    pending = review.contract.passages.get(state=PassageState.PENDING)
    passage_transition(
        passage_id=pending.pk,
        to_state=PassageState.NEEDS_HUMAN_REVIEW,
        actor_kind=ActorKind.ENGINE,
        actor="offline",
        reason="NO_OFFLINE_VERDICT",
    )


def item_ids(page: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'id="item-(\d+)"', page)]


def test_filters_combine_and_the_counts_follow_the_other_filters(client, lee, contracts):
    first = contracts(3, "alpha.txt", assignment=True)
    contracts(2, "beta.txt")
    _send_pending_to_lawyers(first)
    client.force_login(lee)

    page = client.get(f"/queue/?contract={first.contract_id}").content.decode()
    assert len(item_ids(page)) == 4
    assert "alpha.txt (4)" in page and "beta.txt (2)" in page  # each contract's own count
    assert "Most Favored Nation (3)" in page and "Anti-Assignment (1)" in page

    page = client.get(
        f"/queue/?contract={first.contract_id}&state=REJECTED&severity=critical"
    ).content.decode()
    assert len(item_ids(page)) == 3
    assert 'value="REJECTED" selected' in page  # the filters are in the URL and the form

    counts = client.get(f"/queue/counts/?contract={first.contract_id}&state=REJECTED").json()
    assert counts["total"] == 3
    assert {f["label"]: f["n"] for f in counts["contract"]} == {"alpha.txt": 3, "beta.txt": 2}
    assert {f["value"]: f["n"] for f in counts["state"]} == {
        "REJECTED": 3,
        "NEEDS_HUMAN_REVIEW": 1,
    }


def test_mine_and_overdue_filters(client, lee, contracts):
    review = contracts(3, "alpha.txt")
    ids = sorted(QueueItem.objects.filter(review=review).values_list("pk", flat=True))
    queue_item_claim(item_id=ids[0], user=lee)
    QueueItem.objects.filter(pk=ids[2]).update(due_at="2000-01-01T00:00:00Z")
    client.force_login(lee)
    assert item_ids(client.get("/queue/?mine=1").content.decode()) == [ids[0]]
    assert item_ids(client.get("/queue/?overdue=1").content.decode()) == [ids[2]]
    counts = client.get("/queue/counts/").json()
    assert (counts["mine"], counts["overdue"]) == (1, 1)


def test_grouping_by_contract_puts_each_contracts_items_together(client, lee, contracts):
    contracts(2, "zeta.txt")
    contracts(2, "alpha.txt")
    client.force_login(lee)
    page = client.get("/queue/?group=contract").content.decode()
    headers = re.findall(r'<h2 class="contract-group"[^>]*>\s*<label>.*?\n\s*(\S+)</label>', page)
    assert headers == ["alpha.txt", "zeta.txt"]


def test_bulk_decision_asks_for_a_confirmation_that_counts_the_passages(client, lee, contracts):
    review = contracts(3, "alpha.txt")
    ids = list(QueueItem.objects.filter(review=review).values_list("pk", flat=True))
    client.force_login(lee)
    query = f"contract={review.contract_id}"
    confirm = client.post(
        "/queue/bulk/", {"action": "accept", "item": ids, "note": "", "next": query}
    ).content.decode()
    assert "Decide 3 items: Clause acceptable." in confirm
    assert "3 passages change state." in confirm
    assert "accepting them needs a written justification" in confirm
    assert not QueueItem.objects.filter(status=ItemStatus.DONE).exists()  # nothing yet

    response = client.post(
        "/queue/bulk/",
        {"action": "accept", "item": ids, "note": "Client accepts.", "next": query, "confirm": "1"},
    )
    assert response.status_code == 302 and response["Location"] == f"/queue/?{query}"
    assert QueueItem.objects.filter(status=ItemStatus.DONE, note="Client accepts.").count() == 3
    page = client.get(response["Location"]).content.decode()
    assert "3 items decided; 3 passages changed state." in page
    assert page.count('data-action="undo"') == 3


def test_undo_from_the_page_brings_the_item_back(client, lee, contracts):
    review = contracts(1, "alpha.txt")
    item = QueueItem.objects.get(review=review)
    queue_item_claim(item_id=item.pk, user=lee)
    client.force_login(lee)
    client.post(f"/queue/{item.pk}/decide/", {"decision": "reject", "note": "No."})
    response = client.post(f"/queue/{item.pk}/undo/", {"next": ""})
    assert response["Location"] == f"/queue/?item={item.pk}#item-{item.pk}"
    page = client.get(response["Location"]).content.decode()
    assert item_ids(page) == [item.pk] and 'data-action="reject"' in page
    assert "Clause not acceptable" in page and "Decision undone" in page


def test_a_reviewer_sees_how_many_items_wait_and_for_whom(client, reviewer, lee, contracts):
    review = contracts(3, "alpha.txt")
    queue_item_claim(item_id=QueueItem.objects.filter(review=review).first().pk, user=lee)
    client.force_login(reviewer)
    page = client.get("/queue/").content.decode()
    waiting = page[page.index('id="waiting"') : page.index("</section>")]
    assert "3 items wait" in waiting
    assert "for the matter's lawyers (lee)" in waiting
    assert "2 not claimed" in waiting and "1 claimed by lee" in waiting


def test_the_queue_page_reads_the_same_number_of_queries_for_10_and_200_items(
    client, lee, contracts
):
    from reviewapp.queue.views import QUEUE_PAGE_SIZE

    client.force_login(lee)
    url = "/queue/?severity=critical&state=REJECTED&group=contract"
    contracts(10, "small.txt")
    client.get(url)  # warm: sessions, compiled playbooks
    with CaptureQueriesContext(connection) as small:
        assert len(item_ids(client.get(url).content.decode())) == 10
    contracts(190, "large.txt")
    with CaptureQueriesContext(connection) as large:
        assert len(item_ids(client.get(url).content.decode())) == QUEUE_PAGE_SIZE  # one page
    assert len(large.captured_queries) <= len(small.captured_queries) <= QUERY_BOUND


def test_the_queue_page_stays_under_its_query_bound(
    client, lee, contracts, django_assert_max_num_queries
):
    contracts(200, "large.txt")
    client.force_login(lee)
    client.get("/queue/")
    with django_assert_max_num_queries(QUERY_BOUND):
        client.get("/queue/?severity=critical&mine=&overdue=&group=contract")


def test_the_decision_says_what_is_decided_in_both_languages(client, lee, contracts):
    review = contracts(1, "alpha.txt")
    queue_item_claim(item_id=QueueItem.objects.get(review=review).pk, user=lee)
    client.force_login(lee)
    english = client.get("/queue/").content.decode()
    assert "Clause acceptable" in english and "Clause not acceptable" in english
    chinese = client.get("/queue/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "条款可接受" in chinese and "条款不可接受" in chinese
    assert ">Accept<" not in english and ">Reject<" not in english


def test_due_times_are_in_the_lawyers_chosen_zone_in_both_languages(client, lee, contracts):
    from datetime import timedelta

    from reviewapp.accounts.profile.services import profile_time_zone_set

    review = contracts(1, "alpha.txt")
    item = QueueItem.objects.get(review=review)
    client.force_login(lee)
    utc = f"{item.due_at:%Y-%m-%d %H:%M} UTC"
    assert utc in client.get("/queue/").content.decode()  # no choice: UTC, the browser's beside
    profile_time_zone_set(user=lee, time_zone="Asia/Shanghai")
    shanghai = f"{item.due_at + timedelta(hours=8):%Y-%m-%d %H:%M} Asia/Shanghai"
    english = client.get("/queue/").content.decode()
    assert f"due {shanghai}" in english and utc not in english
    assert 'data-time-zone="Asia/Shanghai"' in english
    chinese = client.get("/queue/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert f"截止 {shanghai}" in chinese
    live = client.get(f"/queue/{item.pk}/").content.decode()  # an item refreshed live
    assert f"due {shanghai}" in live
