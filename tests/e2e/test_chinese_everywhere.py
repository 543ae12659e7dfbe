"""In Chinese, nothing a lawyer reads on the main pages is left in English (home, matter,
review page, portfolio grid, contract history, queue, reports, audit log).

The pass walks every visible text node (and the titles, placeholders and labels of controls) of
each page in Chromium. What is the user's own content (the contract's words, file and people's
names, notes) is marked ``translate="no"`` in the templates, the HTML standard's way of saying
"do not translate this", and skipped. Anything else with a Latin word of three letters or more
fails, unless it is a name a Chinese reader sees as it is (PDF, Claude, ...).
"""

from __future__ import annotations

import json
import re

import pytest
from rest_framework.authtoken.models import Token

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import Contract
from tests.e2e.test_upload_flow import sign_in
from tests.processes import celery_worker, wait_until, web_server
from tests.stack.faults import upload, wait_for_all_finished

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONTRACT = b"""MASTER SERVICES AGREEMENT

This Master Services Agreement is entered into as of March 1, 2021 between Acme Corp.
("Customer") and Beta Services LLC ("Supplier").

1. Term. This Agreement starts on the Effective Date and continues for three (3) years, and
renews automatically for successive one-year terms unless either party gives ninety (90) days'
notice of non-renewal.

2. Most Favored Customer. Supplier shall offer Customer prices no less favorable than those
offered to any other customer for the same services.

3. Exclusivity. Customer shall purchase the services exclusively from Supplier during the Term.

4. Limitation of Liability. Supplier's total liability shall not exceed the fees paid in the
twelve (12) months before the claim.

5. Assignment. Neither party may assign this Agreement without the prior written consent of the
other party.

6. Governing Law. This Agreement is governed by the laws of the State of New York.
"""

SAME_IN_CHINESE = {
    "API", "PDF", "DOCX", "CSV", "XLSX", "JSON", "Word", "Excel", "Claude", "Clausewise",
    "OCR", "SLA", "URL", "HTTPS", "ISO", "MFN", "CUAD", "Tesseract", "OCRmyPDF", "TXT", "zip",
    "docx", "UTC", "UTF", "Token",
}  # fmt: skip
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]{2,}")
# Inside a translated sentence: quoted contract words and rule ids (identifiers, like code).
QUOTED_OR_RULE_ID = re.compile(r"“[^”]*”|\"[^\"]*\"|\b(?:en|zh|router|model)\.[\w.-]+")

FIND_ENGLISH = """() => {
  const skip = (el) => !!el.closest('[translate="no"], script, style, noscript, template, '
    + '.textLayer, canvas, svg, code, pre, kbd, textarea, [hidden], [aria-hidden="true"]');
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return style.visibility !== 'hidden' && style.display !== 'none' && (box.width || box.height);
  };
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (!text || !el || skip(el) || !visible(el)) continue;
    found.push(text);
  }
  for (const el of document.querySelectorAll('[title], [placeholder], [aria-label], option')) {
    if (skip(el)) continue;
    for (const attr of ['title', 'placeholder', 'aria-label']) {
      const value = el.getAttribute(attr);
      if (value) found.push(value);
    }
  }
  return found;
}"""


def english_in(page, content: list[str]) -> list[str]:
    """Texts with English words left once the user's own names (``content``: people, matters,
    files) are taken out: inside a translated sentence they cannot carry translate="no"."""
    left = set()
    for text in page.evaluate(FIND_ENGLISH):
        for name in content:
            text = text.replace(name, " ")
        text = QUOTED_OR_RULE_ID.sub(" ", text)
        if any(word.strip("-'’") not in SAME_IN_CHINESE for word in WORD.findall(text)):
            left.add(text.strip())
    return sorted(left)


def test_main_pages_in_chinese_have_no_english_a_lawyer_reads(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    reviewer = matter.memberships.get(user__username="reviewer").user
    token = Token.objects.create(user=reviewer).key
    with celery_worker(tmp_path / "worker.log"), web_server(tmp_path / "web.log") as url:
        status, body = upload(url, matter.pk, token, "msa.txt", CONTRACT)
        assert status == 201, body
        assert not wait_for_all_finished([body["id"]], timeout_s=120)
        contract = Contract.objects.get(pk=body["id"])
        assert wait_until(lambda: contract.passages.exclude(state="CONFIRMED").exists(), 30)

        pages = {"reviewer": browser.new_page(), "lawyer": browser.new_page()}
        for name, page in pages.items():
            sign_in(page, url, name, passwords[name])
            page.click("button[name=language][value=zh-hans]")
            page.wait_for_selector("html[lang=zh-hans]")
        admin = browser.new_page()
        sign_in(admin, url, "admin", passwords["admin"])
        admin.click("button[name=language][value=zh-hans]")
        admin.wait_for_selector("html[lang=zh-hans]")

        visits = [
            (pages["reviewer"], "/"),
            (pages["reviewer"], f"/matters/{matter.pk}/"),
            (pages["reviewer"], f"/contracts/{contract.pk}/"),
            (pages["reviewer"], f"/matters/{matter.pk}/grid/"),
            (pages["reviewer"], f"/contracts/{contract.pk}/history/"),
            (pages["lawyer"], "/queue/"),
            (admin, "/reports/"),
            (admin, "/audit/"),
        ]
        content = sorted(
            {"Demo matter", "Demo LLP", "DEMO-001", "msa.txt", "English", *passwords},
            key=len,
            reverse=True,
        )
        english = {}
        for page, path in visits:
            page.goto(f"{url}{path}")
            page.wait_for_load_state("networkidle")
            if page.locator("#review-redlines").count():  # fetched as the reader nears it
                page.locator("#review-redlines").scroll_into_view_if_needed()
                page.wait_for_selector("#review-redlines[data-loaded='1']", state="attached")
            left = english_in(page, content)
            if left:
                english[path] = left
        assert not english, json.dumps(english, ensure_ascii=False, indent=1)
