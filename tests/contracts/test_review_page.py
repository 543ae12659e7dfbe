"""The contract review page: passages with their rules, counts, the viewer's data, live status."""

from __future__ import annotations

import io
import json
import re

import pytest

from reviewapp.accounts.models import Membership, Role
from reviewapp.contracts.models import PassageState
from reviewapp.contracts.services import contract_ingest, contract_upload
from reviewapp.queue.models import QueueItem
from reviewapp.queue.services import queue_item_claim, queue_item_decide
from reviewapp.realtime.models import Event
from reviewapp.reviews.services import review_scan
from tests.factories import CONTRACT, STRICT, active_playbook, ingested_contract

pytestmark = pytest.mark.django_db


@pytest.fixture
def blocked_contract(matter):
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text=CONTRACT)
    review_scan(contract_id=contract.pk, enqueue=False)
    return contract


def _page(client, user, contract) -> str:
    client.force_login(user)
    response = client.get(f"/contracts/{contract.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def _json_script(page: str, element_id: str):
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', page, re.S
    )
    assert match, element_id
    return json.loads(match.group(1))


def test_passages_show_state_category_rule_and_severity(client, reviewer, blocked_contract):
    page = _page(client, reviewer, blocked_contract)
    assert "Most Favored Nation" in page and "en.strict.mfn" in page
    assert 'data-severity="critical"' in page
    assert 'data-categories="Anti-Assignment"' in page
    assert '<option value="Most Favored Nation">' in page


def test_counts_per_state_match_the_state_register(client, reviewer, blocked_contract):
    page = _page(client, reviewer, blocked_contract)
    review = blocked_contract.review
    api = client.get(f"/api/reviews/{review.pk}/state/").json()["counts"]
    shown = dict(re.findall(r'data-count="(\w+)">(\d+)<', page))
    assert {state: int(n) for state, n in shown.items()} == api
    assert api[PassageState.REJECTED] == 1


def test_blocked_review_shows_the_banner(client, reviewer, blocked_contract):
    page = _page(client, reviewer, blocked_contract)
    banner = re.search(r'<p class="banner" role="alert" id="review-banner"([^>]*)>', page)
    assert banner and "hidden" not in banner.group(1)
    assert re.search(r'id="review-complete" hidden', page)


def test_viewer_data_has_flagged_passages_and_the_text_of_a_text_document(
    client, reviewer, blocked_contract
):
    data = _json_script(_page(client, reviewer, blocked_contract), "viewer-data")
    assert not data["isPdf"]
    assert data["text"] == CONTRACT
    flagged = {p["index"]: p for p in data["flagged"]}
    assert {p["state"] for p in flagged.values()} == {"PENDING", "REJECTED"}
    for passage in flagged.values():
        assert CONTRACT[passage["start"] : passage["end"]] == passage["text"]
    assert len(data["spans"]) == blocked_contract.passages.count()


def test_decision_shows_who_decided(client, reviewer, make_user, matter, blocked_contract):
    lawyer = make_user("lee")
    Membership.objects.create(user=lawyer, matter=matter, role=Role.LAWYER)
    item = QueueItem.objects.get(passage__contract=blocked_contract)
    queue_item_claim(item_id=item.pk, user=lawyer)
    queue_item_decide(item_id=item.pk, user=lawyer, decision="accept", note="Market standard.")
    page = _page(client, reviewer, blocked_contract)
    assert "Lawyer decision: accepted by lee — Market standard." in page
    banner = re.search(r'id="review-banner"([^>]*)>', page)
    assert banner and "hidden" in banner.group(1)


def test_unblocking_publishes_the_review_status(make_user, matter, blocked_contract):
    lawyer = make_user("lee")
    Membership.objects.create(user=lawyer, matter=matter, role=Role.LAWYER)
    item = QueueItem.objects.get(passage__contract=blocked_contract)
    queue_item_claim(item_id=item.pk, user=lawyer)
    queue_item_decide(item_id=item.pk, user=lawyer, decision="reject")  # state stays REJECTED
    event = Event.objects.filter(type="review.status").latest("pk")
    assert event.payload == {
        "contract_id": blocked_contract.pk,
        "review_id": blocked_contract.review.pk,
        "status": "IN_REVIEW",  # the assignment passage still waits for its verification
    }


def test_page_resumes_live_events_from_before_its_data(client, reviewer, blocked_contract):
    seq = Event.objects.latest("pk").pk
    page = _page(client, reviewer, blocked_contract)
    assert f'data-last-seq="{seq}"' in page


def test_pdf_is_served_inline_for_the_viewer(client, reviewer, matter, cuad_dir):
    labels = [json.loads(line) for line in (cuad_dir / "labels.jsonl").open()]
    pdf = (cuad_dir / sorted(labels, key=lambda d: d["id"])[0]["pdf"]).read_bytes()
    contract, _ = contract_upload(
        matter=matter, file=io.BytesIO(pdf), name="c.pdf", size=len(pdf), enqueue=False
    )
    contract_ingest(contract_id=contract.pk, enqueue=False)
    contract.refresh_from_db()
    client.force_login(reviewer)
    response = client.get(f"/api/contracts/{contract.pk}/download/?inline=1")
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("inline")
    assert b"".join(response.streaming_content) == pdf
    data = _json_script(client.get(f"/contracts/{contract.pk}/").content.decode(), "viewer-data")
    assert data["isPdf"] and "text" not in data
    assert len(data["pageSpans"]) == contract.page_count


def test_text_document_is_never_served_inline(client, reviewer, blocked_contract):
    blocked_contract.file.save("c.txt", io.BytesIO(CONTRACT.encode()))
    client.force_login(reviewer)
    response = client.get(f"/api/contracts/{blocked_contract.pk}/download/?inline=1")
    assert response["Content-Disposition"].startswith("attachment")
    assert response["Content-Type"] == "application/octet-stream"


def test_other_matters_contracts_are_not_shown(client, make_user, blocked_contract):
    client.force_login(make_user("stranger"))
    assert client.get(f"/contracts/{blocked_contract.pk}/").status_code == 404


def test_open_items_show_their_due_time_and_escalation(client, reviewer, blocked_contract):
    from datetime import timedelta

    from django.utils import timezone

    from reviewapp.queue.models import QueueItem
    from reviewapp.queue.services import queue_escalate_overdue

    item = QueueItem.objects.get(review__contract=blocked_contract)
    assert f"due {item.due_at:%Y-%m-%d %H:%M} UTC" in _page(client, reviewer, blocked_contract)
    QueueItem.objects.filter(pk=item.pk).update(due_at=timezone.now() - timedelta(hours=1))
    queue_escalate_overdue()
    assert "Escalated: overdue since" in _page(client, reviewer, blocked_contract)
