"""A reviewer signs in, uploads a CUAD PDF and watches it become passages, in Chromium."""

from __future__ import annotations

import json

import pytest
from django_otp.plugins.otp_totp.models import TOTPDevice

from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import Contract, DocumentStatus
from tests.processes import celery_worker, web_server
from tests.two_factor import code_from_secret, next_code

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RECORD_PROGRESS = """
window.__progress = [];
new MutationObserver((mutations) => {
  for (const m of mutations) {
    const row = m.target.closest && m.target.closest('li.upload');
    if (row && row.dataset.percent) window.__progress.push([
      Number(row.dataset.percent), row.dataset.status || '', document.body.dataset.live || '']);
  }
}).observe(document.getElementById('upload-list'),
           {attributes: true, subtree: true, childList: true});
"""


def sign_in(page, url: str, username: str, password: str) -> None:
    """The password, then for a user who must use a second factor (the demo admin) the code:
    set up from the key the page shows at the first sign-in, from the app's key afterwards."""
    page.goto(f"{url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("form:has(input[name=password]) button[type=submit]")  # not the language switch
    page.wait_for_url(lambda address: "/login/" not in address)
    if "/account/two-factor/setup/" in page.url:
        page.fill(
            "#setup-form input[name=otp_code]", code_from_secret(page.inner_text("#totp-secret"))
        )
        page.click("#setup-form button[type=submit]")
        page.click("#continue")
    elif "/account/two-factor/verify/" in page.url:
        device = TOTPDevice.objects.get(user__username=username, confirmed=True)
        page.fill("#totp-form input[name=otp_code]", next_code(device))
        page.click("#totp-form button[type=submit]")
    page.wait_for_url(f"{url}/")


def test_reviewer_uploads_pdf_and_sees_passages_with_pages(browser, cuad_dir, tmp_path):
    labels = [json.loads(line) for line in (cuad_dir / "labels.jsonl").open()]
    pdf = cuad_dir / sorted(labels, key=lambda d: d["id"])[3]["pdf"]
    passwords = demo_seed()
    with celery_worker(tmp_path / "worker.log"), web_server(tmp_path / "web.log") as url:
        page = browser.new_page()
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.click("text=Demo matter")
        page.wait_for_function("() => document.body?.dataset.live === 'connected'")
        page.evaluate(RECORD_PROGRESS)
        page.set_input_files("#file-input", str(pdf))
        row = page.locator("li.upload").first
        row.locator("text=Open").wait_for(timeout=90_000)
        progress = page.evaluate("window.__progress")
        percents = [p[0] for p in progress]
        assert percents == sorted(percents), progress
        assert len(set(percents)) >= 3, progress  # upload, then ingestion steps
        assert percents[-1] == 100
        assert "INGESTING" in {p[1] for p in progress}, "ingestion progress never arrived live"
        assert "Ready" in row.inner_text()

        row.locator("text=Open").click()
        page.wait_for_selector("ol.passages li")
        contract = Contract.objects.get(original_name=pdf.name)
        assert contract.status == DocumentStatus.INGESTED
        # The list comes in windows (the first 40 passages); a deep link reaches the last one.
        total = contract.passages.count()
        assert page.locator("ol.passages li").count() == min(total, 40)
        assert page.locator("ol.passages li .page").first.inner_text() == "p. 1"
        last = contract.passages.order_by("-index").first()
        assert last.page > 1
        page.goto(f"{page.url.split('#')[0].split('?')[0]}?passage={last.index}")
        page.wait_for_selector(f"#passage-{last.index}")
        assert page.locator(f"#passage-{last.index} .page").inner_text() == f"p. {last.page}"
