"""What a user sees of a Message Batch: the API, and the status table on the matter's page."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils import timezone

from reviewapp.contracts.models import IntakeBatch
from reviewapp.reviews.batches.models import ModelBatch, ModelBatchRound, ModelBatchStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(matter):
    intake = IntakeBatch.objects.create(matter=matter, name="room.zip", use_model_batch=True)
    return ModelBatch.objects.create(
        matter=matter,
        intake_batch=intake,
        round=ModelBatchRound.DRAFTS,
        status=ModelBatchStatus.LANDED,
        anthropic_id="msgbatch_1",
        request_count=50,
        succeeded_count=47,
        errored_count=1,
        expired_count=2,
        estimated_cost_usd=Decimal("1.234567"),
        actual_cost_usd=Decimal("0.612345"),
        submitted_at=timezone.now(),
        landed_at=timezone.now(),
    )


def test_batch_status_is_served_to_members_only(client, reviewer, make_user, matter, batch):
    client.force_login(reviewer)
    body = client.get(f"/api/model-batches/{batch.pk}/").json()
    assert body["status"] == "LANDED" and body["round"] == "drafts"
    assert body["counts"] == {
        "processing": 0,
        "succeeded": 47,
        "errored": 1,
        "canceled": 0,
        "expired": 2,
    }
    assert body["estimated_cost_usd"] == "1.234567" and body["actual_cost_usd"] == "0.612345"
    listed = client.get(f"/api/matters/{matter.pk}/model-batches/").json()
    assert [row["id"] for row in listed] == [batch.pk]
    client.force_login(make_user("stranger"))
    assert client.get(f"/api/model-batches/{batch.pk}/").status_code == 404
    assert client.get(f"/api/matters/{matter.pk}/model-batches/").status_code == 404


def test_status_table_shows_counts_and_both_costs(matter, batch):
    html = Template("{% load model_batches %}{% model_batch_status matter=matter %}").render(
        Context({"matter": matter})
    )
    assert f'data-model-batch-id="{batch.pk}"' in html
    assert "Results in" in html  # the status, in words
    assert "$1.2346" in html and "$0.6123" in html
    assert 'data-role="expired">2<' in html
    assert "js/model_batch.js" in html


def test_status_table_is_hidden_until_a_batch_exists(matter):
    html = Template("{% load model_batches %}{% model_batch_status matter=matter %}").render(
        Context({"matter": matter})
    )
    assert 'id="model-batches"' in html and " hidden>" in html


def test_matter_page_shows_the_batch_table(client, reviewer, matter, batch):
    client.force_login(reviewer)
    html = client.get(reverse("matter", args=[matter.pk])).content.decode()
    assert f'data-model-batch-id="{batch.pk}"' in html and "$0.6123" in html
