"""A reviewer uploads a zip of 20 contracts, watches the batch reach 20 of 20 with its failure
listed, then deletes the failed upload from the matter list, in Chromium."""

from __future__ import annotations

import json
import random
import zipfile

import pytest

from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import Contract, DocumentStatus, IntakeBatch
from tests.e2e.test_upload_flow import sign_in
from tests.processes import celery_worker, web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every count the batch panel showed, as the page saw it (live, not after a reload).
RECORD_COUNTS = """
window.__counts = [];
new MutationObserver(() => {
  document.querySelectorAll('#intake-batches .intake-batch').forEach((batch) => {
    window.__counts.push([Number(batch.dataset.done), Number(batch.dataset.total)]);
  });
}).observe(document.getElementById('intake-batches'), {childList: true, subtree: true});
"""


def make_data_room(cuad_dir, tmp_path):
    labels = [json.loads(line) for line in (cuad_dir / "labels.jsonl").open()]
    pdfs = [cuad_dir / record["pdf"] for record in sorted(labels, key=lambda r: r["id"])[:19]]
    path = tmp_path / "data room.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for number, pdf in enumerate(pdfs):
            archive.write(pdf, f"Data room/{'Leases' if number % 2 else 'Supply'}/{pdf.name}")
        archive.writestr("Data room/finance.xlsx", random.Random(5).randbytes(20_000))
    return path


def test_zip_of_twenty_contracts_reaches_twenty_of_twenty_and_a_failure_can_go(
    browser, cuad_dir, tmp_path
):
    data_room = make_data_room(cuad_dir, tmp_path)
    passwords = demo_seed()
    with celery_worker(tmp_path / "worker.log"), web_server(tmp_path / "web.log") as url:
        page = browser.new_page()
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.click("text=Demo matter")
        page.wait_for_function("() => document.body?.dataset.live === 'connected'")
        page.evaluate(RECORD_COUNTS)
        page.set_input_files("#file-input", str(data_room))
        batch = page.locator("#intake-batches .intake-batch").first
        page.wait_for_function(
            "() => { const b = document.querySelector('#intake-batches .intake-batch');"
            " return b && b.dataset.total === '20' && b.dataset.done === '20'; }",
            timeout=300_000,
        )
        counts = page.evaluate("window.__counts")
        assert any(0 < done < 20 for done, _ in counts), counts  # it moved live, n of N
        assert "20 of 20 documents done" in batch.inner_text()
        failures = batch.locator("[data-role=failures] li")
        assert failures.count() == 1
        assert "Data room/finance.xlsx" in failures.first.inner_text()
        failed = Contract.objects.get(original_name="finance.xlsx")
        assert failed.status == DocumentStatus.UNSUPPORTED_TYPE
        assert failed.folder_path == "Data room"
        assert Contract.objects.filter(status=DocumentStatus.INGESTED).count() == 19
        assert IntakeBatch.objects.get().contracts.count() == 20

        row = page.locator(f"#contracts tr[data-contract-id='{failed.pk}']")
        assert "Unsupported type" in row.inner_text()
        page.reload()  # the same words after a reload
        row = page.locator(f"#contracts tr[data-contract-id='{failed.pk}']")
        assert "Unsupported type" in row.inner_text()
        row.locator("[data-role=delete]").click()
        page.select_option("select[name=reason]", "wrong_file")
        page.click("#confirm-delete")
        page.wait_for_url(f"{url}/matters/**")
        assert page.locator(f"#contracts tr[data-contract-id='{failed.pk}']").count() == 0
        assert not Contract.objects.filter(pk=failed.pk).exists()
        assert page.locator("#contracts tr[data-contract-id]").count() == 19
