"""The review page's key facts: a date with a close competing value says so and links the other
date's passage, when the draft arrives live and after a reload, in English and in Chinese."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import Contract
from reviewapp.realtime.events import event_publish
from reviewapp.reviews.drafting import draft_payload, offline_draft
from reviewapp.reviews.models import Draft, DraftStatus
from reviewapp.reviews.services import review_scan
from tests.e2e.test_blocking import in_thread
from tests.e2e.test_upload_flow import sign_in
from tests.factories import STRICT, active_playbook, ingested_contract
from tests.processes import web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The preamble dates the contract one day, the testimonium another.
CONTESTED = (
    "SUPPLY AGREEMENT\n\nThis Supply Agreement is made and entered into as of March 12, 2019 by "
    'and between Acme Widgets, Inc. ("Supplier") and Beta Stores LLC ("Buyer").\n\n'
    "1. Supply. Supplier shall supply the products Buyer orders.\n\n"
    "2. Governing Law. This Agreement is governed by the laws of the State of New York.\n\n"
    "IN WITNESS WHEREOF, the parties have executed this Agreement as of February 4, 2005.\n"
)


def _streaming_contract() -> Contract:
    matter = Matter.objects.get(name="Demo matter")
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = ingested_contract(matter=matter, text=CONTESTED, name="contested.txt")
    review_scan(contract_id=contract.pk, enqueue=False)
    Draft.objects.update_or_create(
        review=contract.review, defaults={"engine": "offline", "status": DraftStatus.STREAMING}
    )
    return contract


def _complete(contract: Contract) -> None:
    """The draft completes as drafting completes it: saved, then announced to the page."""
    draft = Draft.objects.get(review=contract.review)
    draft.data, draft.status = offline_draft(contract.review), DraftStatus.COMPLETE
    draft.save()
    payload = {"contract_id": contract.pk, "review_id": contract.review.pk, **draft_payload(draft)}
    event_publish(matter_id=contract.matter_id, type="draft.complete", payload=payload)


def test_an_unsure_date_names_and_links_its_competitor_live_and_in_chinese(browser, tmp_path):
    passwords = demo_seed()
    contract = in_thread(_streaming_contract)
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/contracts/{contract.pk}/")
        page.wait_for_function("() => document.body?.dataset.live === 'connected'")
        page.evaluate("window.__samePage = true")
        in_thread(_complete, contract)
        facts = page.locator("#draft dl.facts")
        expect(facts).to_contain_text("March 12, 2019 (unsure: also February 4, 2005, passage #")
        assert page.evaluate("window.__samePage === true"), "the page reloaded: nothing shown live"
        link = facts.locator("a.fact-candidate").first
        index = contract.passages.get(text__startswith="IN WITNESS").index
        assert link.get_attribute("href") == f"?passage={index}#passage-{index}"
        link.click()
        expect(page.locator(f"#passage-{index}")).to_be_visible()

        page.click("button[name=language][value=zh-hans]")  # the page again, in Chinese
        page.wait_for_selector("html[lang=zh-hans]")
        expect(page.locator("#draft dl.facts")).to_contain_text(
            f"March 12, 2019（待核实：另有 February 4, 2005，第 {index} 段）"
        )
