"""Every page works under the Content-Security-Policy: no violation in Chromium's console."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import Contract
from reviewapp.contracts.services import contract_ingest, contract_upload
from tests.e2e.test_upload_flow import sign_in
from tests.processes import web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""
CLAUSES = [
    "1. Term. This Agreement starts on the Effective Date and lasts two years.",
    "2. Pricing. Customer shall receive most favored nation pricing.",
    "3. Liability. Neither party's liability is limited in any way.",
]


def _pdf() -> bytes:
    out = io.BytesIO()
    page = canvas.Canvas(out, pagesize=A4)
    for number in (1, 2):
        for line, clause in enumerate(CLAUSES):
            page.drawString(72, 760 - 24 * line, f"{clause} (page {number})")
        page.showPage()
    page.save()
    return out.getvalue()


def _ingested_pdf(matter: Matter) -> Contract:
    content = _pdf()
    contract, _ = contract_upload(
        matter=matter, file=io.BytesIO(content), name="csp.pdf", size=len(content), enqueue=False
    )
    try:
        contract_ingest(contract_id=contract.pk, enqueue=False)
        contract.refresh_from_db()
        return contract
    finally:
        connection.close()


def _watch(page) -> list[str]:
    console: list[str] = []
    page.add_init_script(RECORD_VIOLATIONS)
    page.on(
        "console",
        lambda message: (
            console.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    return console


def _violations(page, console: list[str]) -> list[str]:
    return [*console, *page.evaluate("window.__csp || []")]


def test_review_page_queue_and_docs_raise_no_csp_violation(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    with ThreadPoolExecutor(1) as pool:  # Playwright's event loop runs in this thread
        contract = pool.submit(_ingested_pdf, matter).result()
    assert contract.page_count == 2
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        console = _watch(page)
        sign_in(page, url, "lawyer", passwords["lawyer"])
        response = page.goto(f"{url}/contracts/{contract.pk}/")
        assert "script-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_selector("#document[data-ready='1'] .pdf-page canvas", timeout=30_000)
        page.wait_for_selector(".pdf-page[data-rendered='1'] .textLayer span", timeout=30_000)
        page.wait_for_function("() => document.body.dataset.live === 'connected'", timeout=15_000)
        assert _violations(page, console) == []

        for path, ready in (
            ("/queue/", "() => document.body.dataset.live === 'connected'"),
            (f"/matters/{contract.matter_id}/", "() => document.body.dataset.live === 'connected'"),
            ("/api/docs/", "() => !!document.querySelector('.swagger-ui .info')"),
        ):
            page.goto(f"{url}{path}")
            page.wait_for_function(ready, timeout=15_000)
            page.wait_for_timeout(300)
            assert _violations(page, console) == [], path
