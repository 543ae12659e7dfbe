"""A password-protected PDF: the reviewer enters its password on the contract page, the worker
reads it, and the page shows the PDF with its highlights (no "No password given")."""

from __future__ import annotations

import pytest

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import Contract, DocumentStatus
from reviewapp.reviews.models import RuleFiring
from tests.e2e.test_blocking import in_thread, ingest
from tests.e2e.test_upload_flow import sign_in
from tests.factories import active_playbook
from tests.processes import celery_worker, wait_until, web_server
from tests.text import hostile_files as hf

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "s3cret-Password"
PLAYBOOK = """
name: locked
version: "1"
language: en
rules:
  - id: en.locked.termination
    category: Termination For Convenience
    severity: high
    action: reject
    patterns: ['may terminate']
  - id: en.locked.law
    category: Governing Law
    severity: low
    action: verify
    patterns: ['governed by the laws']
"""


def test_unlocked_encrypted_pdf_shows_its_highlights(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    active_playbook(organisation=matter.organisation, source=PLAYBOOK, name="locked")
    locked = hf.make_encrypted_pdf(tmp_path, PASSWORD)
    contract = in_thread(ingest, matter, locked.read_bytes(), "locked.pdf")
    assert contract.status == DocumentStatus.NEEDS_PASSWORD
    with celery_worker(tmp_path / "worker.log"), web_server(tmp_path / "web.log") as url:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/contracts/{contract.pk}/")
        page.wait_for_function("() => document.body?.dataset.live === 'connected'")
        page.fill("#password-form input[name=password]", PASSWORD)
        page.click("#password-form button[type=submit]")
        assert wait_until(
            lambda: Contract.objects.get(pk=contract.pk).status == DocumentStatus.INGESTED,
            timeout_s=90,
        ), "the worker did not read the unlocked PDF"
        # The page reloads by itself once the document is read.
        page.wait_for_selector(
            "#document[data-ready='1'] .pdf-page[data-rendered='1']", timeout=30_000
        )
        flagged = set(
            RuleFiring.objects.filter(passage__contract=contract).values_list(
                "passage__index", flat=True
            )
        )
        assert len(flagged) == 2
        for index in sorted(flagged):  # selecting a passage shows it in the PDF
            page.evaluate("(index) => { location.hash = 'passage-' + index; }", index)
            page.wait_for_selector(f"#document [data-passage='{index}'].hl-selected")
        assert page.locator("#document .hl-rejected").count() >= 1
        assert not page.locator(".page-marker").count(), "a passage was not found in the text"
        assert "password" not in page.inner_text("#document").lower()
        assert not errors, errors
