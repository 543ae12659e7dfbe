"""The queue over the REST API, as a script would use it: read the items, claim, answer per
category, release, undo, flag a missed clause; reviewers read, lawyers write, others get 404."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from reviewapp.contracts.models import PassageState
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.reviews.models import PassageLabel
from tests.queue.test_category_decisions import ASSIGN, BOTH, MFN, reviewed
from tests.queue.test_flags import TEXT
from tests.two_factor import enrolled_device

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    token, _created = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def item(matter) -> QueueItem:
    return QueueItem.objects.get(review=reviewed(matter, BOTH))


def test_the_list_gives_each_item_its_passage_categories_rules_and_scores(item, lawyer):
    body = api(lawyer).get("/api/queue/").json()
    assert body["count"] == 1 and body["next"] is None
    (row,) = body["results"]
    assert row["id"] == item.pk and row["contract_id"] == item.passage.contract_id
    assert row["passage_id"] == item.passage_id and row["index"] == item.passage.index
    assert "most favored nation" in row["text"]
    assert row["categories"] == [MFN, ASSIGN]
    assert set(row["categories_standing"]) == {MFN, ASSIGN}
    assert {r["rule_id"] for r in row["rules"]} == {"en.strict.mfn", "en.strict.assignment"}
    assert {"router_score", "check_score", "dropped"} <= set(row["rules"][0])


def test_the_list_filters(item, lawyer, matter):
    client = api(lawyer)
    contract = item.passage.contract_id
    assert client.get(f"/api/queue/?matter={matter.pk}").json()["count"] == 1
    assert client.get(f"/api/queue/?contract={contract + 1}").json()["count"] == 0
    assert client.get(f"/api/queue/?category={ASSIGN}").json()["count"] == 1
    assert client.get("/api/queue/?category=Exclusivity").json()["count"] == 0
    assert client.get("/api/queue/?state=REJECTED").json()["count"] == 1
    assert client.get("/api/queue/?state=NEEDS_HUMAN_REVIEW").json()["count"] == 0
    client.post(f"/api/queue/{item.pk}/claim/")
    assert client.get(f"/api/queue/?claimed_by={lawyer.username}").json()["count"] == 1
    assert client.get("/api/queue/?claimed_by=nobody").json()["count"] == 0


def test_a_lawyer_claims_answers_each_category_and_undoes(item, lawyer):
    client = api(lawyer)
    assert client.post(f"/api/queue/{item.pk}/claim/").json()["status"] == "CLAIMED"
    half = client.post(
        f"/api/queue/{item.pk}/decide/", {"decisions": {ASSIGN: "not_this"}}, format="json"
    )
    assert half.status_code == 200 and half.json()["status"] == "CLAIMED"
    done = client.post(
        f"/api/queue/{item.pk}/decide/",
        {"decisions": {MFN: "reject"}, "note": "too broad"},
        format="json",
    ).json()
    assert done["status"] == "DONE" and done["decision"] == "reject"
    assert done["decisions"] == {MFN: "reject", ASSIGN: "not_this"}
    assert done["passage_state"] == PassageState.REJECTED
    passages = client.get(f"/api/contracts/{item.passage.contract_id}/passages/").json()
    (row,) = [p for p in passages if p["id"] == item.passage_id]
    assert row["categories"] == [MFN]  # the false flag no longer stands
    undone = client.post(f"/api/queue/{item.pk}/undo/").json()
    assert undone["status"] == "CLAIMED" and undone["decisions"] == {}
    assert not PassageLabel.objects.exists()


def test_decide_errors_have_the_one_shape(item, lawyer):
    client = api(lawyer)
    refused = client.post(f"/api/queue/{item.pk}/decide/", {"decision": "accept"}, format="json")
    assert refused.status_code == 409  # not claimed yet
    assert refused.json()["error"]["code"] == "CONFLICT"
    client.post(f"/api/queue/{item.pk}/claim/")
    wrong = client.post(
        f"/api/queue/{item.pk}/decide/", {"decisions": {MFN: "maybe"}}, format="json"
    )
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == "INVALID"
    unknown = client.post(
        f"/api/queue/{item.pk}/decide/", {"decisions": {"Exclusivity": "accept"}}, format="json"
    )
    assert unknown.status_code == 409
    unjustified = client.post(
        f"/api/queue/{item.pk}/decide/", {"decision": "not_this"}, format="json"
    )
    assert (
        unjustified.status_code == 409 and "justification" in unjustified.json()["error"]["message"]
    )


def test_release_over_the_api(item, lawyer, admin):
    enrolled_device(admin)  # an admin's token works once the admin has a second factor
    api(lawyer).post(f"/api/queue/{item.pk}/claim/")
    released = api(admin).post(f"/api/queue/{item.pk}/release/")
    assert released.status_code == 200 and released.json()["status"] == "OPEN"
    assert api(admin).post(f"/api/queue/{item.pk}/release/").status_code == 409


def test_reviewers_read_lawyers_write_others_get_404(item, reviewer, lawyer, make_user):
    client = api(reviewer)
    assert client.get("/api/queue/").json()["count"] == 1
    assert client.get(f"/api/queue/{item.pk}/").status_code == 200
    for action in ("claim", "release", "decide", "undo"):
        refused = client.post(
            f"/api/queue/{item.pk}/{action}/", {"decision": "accept"}, format="json"
        )
        assert refused.status_code == 403, action
        assert refused.json()["error"]["code"] == "PERMISSION_DENIED"
    contract = item.passage.contract_id
    flag = client.post(f"/api/contracts/{contract}/passages/0/flags/", {"category": MFN})
    assert flag.status_code == 403
    stranger = api(make_user("sam"))
    assert stranger.get("/api/queue/").json()["count"] == 0
    assert stranger.get(f"/api/queue/{item.pk}/").status_code == 404
    for action in ("claim", "release", "decide", "undo"):
        assert stranger.post(f"/api/queue/{item.pk}/{action}/").status_code == 404, action
    assert stranger.get(f"/api/contracts/{contract}/passages/").status_code == 404
    assert (
        stranger.post(f"/api/contracts/{contract}/passages/0/flags/", {"category": MFN}).status_code
        == 404
    )
    assert APIClient().get("/api/queue/").status_code == 401
    item.refresh_from_db()
    assert item.status == ItemStatus.OPEN


def test_a_lawyer_flags_a_missed_clause_over_the_api(matter, lawyer):
    review = reviewed(matter, TEXT)
    passage = review.contract.passages.get(text__icontains="refund")
    client = api(lawyer)
    url = f"/api/contracts/{review.contract_id}/passages/{passage.index}/flags/"
    created = client.post(url, {"category": MFN, "note": "price parity"}, format="json")
    assert created.status_code == 201
    body = created.json()
    assert body["status"] == "CLAIMED" and body["claimed_by"] == lawyer.username
    assert body["raised_by"] == lawyer.username and body["categories"] == [MFN]
    assert body["passage_state"] == PassageState.NEEDS_HUMAN_REVIEW
    assert client.post(url, {"category": MFN}, format="json").status_code == 409
    assert client.post(url, {}, format="json").status_code == 400
    missing = f"/api/contracts/{review.contract_id}/passages/999/flags/"
    assert client.post(missing, {"category": MFN}, format="json").status_code == 404
