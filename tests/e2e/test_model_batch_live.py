"""The matter page's Message Batches table follows the batches live, without a reload."""

from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import IntakeBatch
from reviewapp.reviews.batches.models import ModelBatch, ModelBatchRound, ModelBatchStatus
from reviewapp.reviews.batches.payloads import model_batch_publish
from tests.e2e.test_blocking import MARK_PAGE, in_thread
from tests.e2e.test_upload_flow import sign_in
from tests.processes import web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_batch(matter: Matter) -> ModelBatch:
    intake = IntakeBatch.objects.create(matter=matter, name="room.zip", use_model_batch=True)
    batch = ModelBatch.objects.create(
        matter=matter,
        intake_batch=intake,
        round=ModelBatchRound.DRAFTS,
        status=ModelBatchStatus.IN_PROGRESS,
        request_count=20,
        processing_count=20,
        estimated_cost_usd=Decimal("0.8125"),
    )
    model_batch_publish(batch)
    return batch


def land(batch_id: int) -> None:
    batch = ModelBatch.objects.get(pk=batch_id)
    batch.status, batch.processing_count = ModelBatchStatus.LANDED, 0
    batch.succeeded_count, batch.expired_count = 19, 1
    batch.actual_cost_usd = Decimal("0.4012")
    batch.save()
    model_batch_publish(batch)


def test_matter_page_shows_a_batch_arrive_and_land(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    with web_server(tmp_path / "web.log") as url:
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/matters/{matter.pk}/")
        page.wait_for_function("() => document.body?.dataset.live === 'connected'")
        page.evaluate(MARK_PAGE)
        assert page.locator("#model-batches").is_hidden()
        batch = in_thread(open_batch, matter)
        row = page.locator(f'#model-batches tr[data-model-batch-id="{batch.pk}"]')
        expect(row.locator('[data-role="status"]')).to_have_text("Processing", timeout=15_000)
        expect(row.locator('[data-role="estimated"]')).to_have_text("$0.8125")
        expect(row.locator('[data-role="actual"]')).to_have_text("—")
        in_thread(land, batch.pk)
        expect(row.locator('[data-role="status"]')).to_have_text("Results in", timeout=15_000)
        expect(row.locator('[data-role="actual"]')).to_have_text("$0.4012")
        expect(row.locator('[data-role="expired"]')).to_have_text("1")
        assert page.evaluate("window.__sameDocument === true"), "the page reloaded"
