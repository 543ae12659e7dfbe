"""The main pages pass axe-core's WCAG 2.1 A and AA rules, in English and in Chinese: sign-in,
matter, review (a PDF, with flagged passages and the draft), queue (an open and a claimed item),
the portfolio grid, and the admin's reports and audit log (signed in with a second factor), each
with real content made by a Celery worker. On each, every control the Tab key reaches shows a
focus ring.

axe-core itself comes bundled in the axe-playwright-python package (Deque's axe.min.js,
MPL-2.0); nothing is fetched at test time.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from axe_playwright_python.sync_playwright import Axe
from rest_framework.authtoken.models import Token

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import Contract
from reviewapp.queue.decisions import queue_item_claim
from reviewapp.queue.models import QueueItem
from tests.e2e.test_upload_flow import sign_in
from tests.factories import STRICT, active_playbook
from tests.processes import celery_worker, wait_until, web_server
from tests.stack.faults import upload, wait_for_all_finished
from tests.text.hostile_files import make_text_pdf
from tests.two_factor import enrolled_device

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WCAG_21_AA = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}
LANGUAGES = ("en", "zh-hans")
PAGES = [  # a PDF, so that the review page shows the PDF viewer and its tools
    [
        "MASTER SERVICES AGREEMENT",
        "This Agreement is made between Acme Corp. (Customer) and Beta Services LLC (Supplier).",
        "1. Term. This Agreement starts on the Effective Date and continues for three years.",
    ],
    ["2. Pricing. Customer shall receive most favored nation pricing on every order."],
    [
        "3. Rebates. Customer shall also receive most favoured nation rebates.",
        "4. Assignment. Neither party may assign this Agreement without the other's consent.",
        "5. Governing Law. This Agreement is governed by the laws of the State of New York.",
    ],
]


def violations(axe: Axe, page) -> list[str]:
    """One line per violated rule: its id, impact, how many elements, a few of them."""
    found = axe.run(page, options=WCAG_21_AA).response["violations"]
    return [
        f"{rule['id']} ({rule['impact']}, {len(rule['nodes'])}): "
        + " | ".join(" ".join(node["target"]) for node in rule["nodes"][:4])
        for rule in found
    ]


FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  const ring = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2)
    || style.boxShadow !== 'none';
  const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : '');
  return { name, ring, key: el.outerHTML.slice(0, 200) };
}"""


def unringed_by_keyboard(page, presses: int = 150) -> list[str]:
    """Tab through the page: the controls reached whose focus shows no ring."""
    page.evaluate(  # start from the top of the page, whatever has the focus now
        """() => { const start = document.createElement('span'); start.tabIndex = -1;
                   document.body.prepend(start); start.focus(); }"""
    )
    seen: set[str] = set()
    bare = []
    for _ in range(presses):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused is None or focused["key"] in seen:
            break  # past the last control, or round again
        seen.add(focused["key"])
        if not focused["ring"]:
            bare.append(focused["name"])
    assert len(seen) > 3, "the keyboard reached almost nothing"
    return bare


def settle(page, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    if page.locator("#document").count():
        page.wait_for_selector("#document[data-ready='1'] .pdf-page canvas", timeout=30_000)
        assert page.locator("#passages .flagged").count()
    if page.locator("#review-redlines").count():  # fetched as the reader nears it
        page.locator("#review-redlines").scroll_into_view_if_needed()
        page.wait_for_selector("#review-redlines[data-loaded='1']", state="attached")
        page.evaluate("window.scrollTo(0, 0)")


def choose_language(page, language: str) -> None:
    if language != "en":
        page.click(f"button[name=language][value={language}]")
    page.wait_for_selector(f"html[lang={language}]")


def test_main_pages_pass_wcag_21_aa_in_english_and_chinese(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    active_playbook(organisation=matter.organisation, source=STRICT)
    reviewer = matter.memberships.get(user__username="reviewer").user
    lawyer = matter.memberships.get(user__username="lawyer").user
    enrolled_device(matter.memberships.get(user__username="admin").user)  # sign-in asks its code
    axe = Axe()
    with celery_worker(tmp_path / "worker.log"), web_server(tmp_path / "web.log") as url:
        pdf = make_text_pdf(tmp_path, PAGES, name="msa.pdf").read_bytes()
        token = Token.objects.create(user=reviewer).key
        status, body = upload(url, matter.pk, token, "msa.pdf", pdf)
        assert status == 201, body
        assert not wait_for_all_finished([body["id"]], timeout_s=120)
        contract = Contract.objects.get(pk=body["id"])
        assert wait_until(lambda: contract.passages.filter(firings__isnull=False).exists(), 30)
        assert wait_until(lambda: QueueItem.objects.filter(matter=matter).count() >= 2, 30)
        claimed = QueueItem.objects.filter(matter=matter).order_by("due_at", "pk").first()
        with ThreadPoolExecutor(1) as pool:  # off Playwright's event loop, so the push goes out
            pool.submit(queue_item_claim, item_id=claimed.pk, user=lawyer).result()

        report: dict[str, list[str]] = {}
        for language in LANGUAGES:
            signed_out = browser.new_context().new_page()
            signed_out.goto(f"{url}/login/")
            choose_language(signed_out, language)
            report[f"{language} sign-in"] = violations(axe, signed_out)
            report[f"{language} sign-in focus"] = unringed_by_keyboard(signed_out)

            pages = {}
            for name in ("reviewer", "lawyer", "admin"):
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                pages[name] = context.new_page()
                sign_in(pages[name], url, name, passwords[name])
                choose_language(pages[name], language)
            visits = {  # each page, and what shows it has its content
                "matter": (pages["reviewer"], f"/matters/{matter.pk}/", "#contracts a"),
                "review": (pages["reviewer"], f"/contracts/{contract.pk}/", ".pdf-page canvas"),
                "queue": (pages["lawyer"], "/queue/", "[data-action=accept]"),
                "grid": (pages["reviewer"], f"/matters/{matter.pk}/grid/", "#grid tbody td"),
                "reports": (pages["admin"], "/reports/", "#rule-table tbody tr"),
                "audit log": (pages["admin"], "/audit/", "#audit-events tbody tr"),
            }
            for what, (page, path, content) in visits.items():
                settle(page, f"{url}{path}")
                assert page.locator(f"html[lang={language}]").count()
                assert page.locator(content).count(), f"{what} has no {content}"
                report[f"{language} {what}"] = violations(axe, page)
                report[f"{language} {what} focus"] = unringed_by_keyboard(page)
        failing = {where: found for where, found in report.items() if found}
        assert not failing, json.dumps(failing, ensure_ascii=False, indent=1)
