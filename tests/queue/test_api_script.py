"""The lawyers' day over the REST API, end to end, as a firm's script runs it: upload
contracts, read the queue, answer every item category by category (a false flag among them),
flag a clause the review missed, hand a claim back; each answer is a label the retraining
reads (tests/test_bench_learning.py retrains from the same labels through the services)."""

from __future__ import annotations

import io

import pytest

from reviewapp.contracts.models import PassageState
from reviewapp.reviews.models import LabelKind, PassageLabel
from tests.factories import STRICT, active_playbook
from tests.queue.test_api import api
from tests.queue.test_category_decisions import ASSIGN, MFN

pytestmark = pytest.mark.django_db

CONTRACTS = {
    "pricing.txt": (
        "1. Pricing. Customer shall receive most favored nation pricing and may assign it.\n\n"
        "2. Rebates. Supplier shall refund any difference if it charges another customer less.\n"
    ),
    "assignment.txt": "1. Assignment. Neither party may assign this Agreement.\n",
}


def test_a_script_uploads_reads_answers_flags_and_releases(
    matter, lawyer, django_capture_on_commit_callbacks
):
    active_playbook(organisation=matter.organisation, source=STRICT)
    client = api(lawyer)
    ids = {}
    for name, text in CONTRACTS.items():
        upload = io.BytesIO(text.encode())
        upload.name = name
        with django_capture_on_commit_callbacks(execute=True):  # ingestion and review run here
            sent = client.post(f"/api/matters/{matter.pk}/contracts/", {"file": upload})
        assert sent.status_code == 201, sent.content
        ids[name] = sent.json()["id"]
    for contract_id in ids.values():
        assert client.get(f"/api/contracts/{contract_id}/").json()["status"] == "INGESTED"

    queue = client.get(f"/api/queue/?matter={matter.pk}").json()
    answers = {MFN: "reject", ASSIGN: "accept"}
    for row in queue["results"]:
        assert client.post(f"/api/queue/{row['id']}/claim/").status_code == 200
        # the pricing clause is no assignment clause: a false flag; anywhere else it is one
        wrong = row["contract_id"] == ids["pricing.txt"]
        decisions = {
            category: "not_this" if (category == ASSIGN and wrong) else answers[category]
            for category in row["categories_standing"]
        }
        done = client.post(
            f"/api/queue/{row['id']}/decide/",
            {"decisions": decisions, "note": "as the firm's playbook says"},
            format="json",
        )
        assert done.status_code == 200 and done.json()["status"] == "DONE", done.content
    assert {row["contract_id"] for row in queue["results"]} == set(ids.values())
    assert client.get(f"/api/queue/?matter={matter.pk}").json()["count"] == 0  # all answered

    passages = client.get(f"/api/contracts/{ids['pricing.txt']}/passages/").json()
    rebates = next(p for p in passages if "refund" in p["text"])
    assert MFN not in rebates["categories"]  # the review missed it
    url = f"/api/contracts/{ids['pricing.txt']}/passages/{rebates['index']}/flags/"
    flagged = client.post(url, {"category": MFN, "note": "price parity"}, format="json")
    assert flagged.status_code == 201
    item = flagged.json()
    assert item["status"] == "CLAIMED" and item["passage_state"] == PassageState.NEEDS_HUMAN_REVIEW
    released = client.post(f"/api/queue/{item['id']}/release/")
    assert released.status_code == 200 and released.json()["status"] == "OPEN"
    passages = client.get(f"/api/contracts/{ids['pricing.txt']}/passages/").json()
    assert MFN in next(p for p in passages if p["id"] == rebates["id"])["categories"]

    kinds = set(PassageLabel.objects.values_list("category", "kind"))
    assert (ASSIGN, LabelKind.NOT_THIS) in kinds  # the false flag: a negative example
    assert (ASSIGN, LabelKind.ACCEPT) in kinds and (MFN, LabelKind.REJECT) in kinds
    assert (MFN, LabelKind.FLAGGED) in kinds  # the missed clause: a positive one
