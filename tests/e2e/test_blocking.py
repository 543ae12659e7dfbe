"""A rule-rejected passage blocks the review on the reviewer's page; a lawyer's decision
unblocks it, and the reviewer sees it happen without reloading."""

from __future__ import annotations

import io
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from playwright.sync_api import expect

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import Contract, PassageState
from reviewapp.contracts.services import contract_ingest, contract_upload
from reviewapp.queue.models import ItemStatus, QueueItem
from reviewapp.queue.services import queue_item_claim, queue_item_decide
from reviewapp.reviews.models import ActorKind
from reviewapp.reviews.services import passage_transition
from tests.e2e.test_upload_flow import sign_in
from tests.factories import STRICT, active_playbook
from tests.processes import web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONTRACT = b"""1. Pricing. Customer shall receive most favored nation pricing on every order.

2. Assignment. Neither party may assign this Agreement without the other's consent.

3. Notices. Notices shall be in writing and sent to the addresses above.
"""

MARK_PAGE = "window.__sameDocument = true"


def in_thread(fn, *args):
    """Run app code in another thread: Playwright's event loop owns this one."""

    def run():
        try:
            return fn(*args)
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()


def ingest(matter: Matter, text: bytes, name: str) -> Contract:
    contract, _ = contract_upload(
        matter=matter, file=io.BytesIO(text), name=name, size=len(text), enqueue=False
    )
    contract_ingest(contract_id=contract.pk, enqueue=False)
    return Contract.objects.get(pk=contract.pk)


def decide(passage_id: int, decision: str, note: str) -> None:
    item = QueueItem.objects.exclude(status=ItemStatus.DONE).get(passage_id=passage_id)
    lawyer = item.matter.memberships.get(user__username="lawyer").user
    queue_item_claim(item_id=item.pk, user=lawyer)
    queue_item_decide(item_id=item.pk, user=lawyer, decision=decision, note=note)


def engine_rejects(passage_id: int) -> None:
    passage_transition(
        passage_id=passage_id,
        to_state=PassageState.REJECTED,
        actor_kind=ActorKind.ENGINE,
        actor="offline",
        reason="The verifier found the assignment clause unacceptable.",
    )


def test_rejected_passage_blocks_and_lawyers_decisions_unblock_live(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = in_thread(ingest, matter, CONTRACT, "mfn.txt")
    mfn = contract.passages.get(state=PassageState.REJECTED)
    assignment = contract.passages.get(state=PassageState.PENDING)
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/contracts/{contract.pk}/")
        page.wait_for_function("() => document.body?.dataset.live === 'connected'")
        banner, complete = page.locator("#review-banner"), page.locator("#review-complete")
        assert banner.is_visible() and banner.get_attribute("role") == "alert"
        assert "Blocked" in banner.inner_text()
        assert complete.is_hidden()
        highlight = page.locator(f"#document [data-passage='{mfn.index}']")
        expect(highlight).to_have_class(re.compile(r"\bhl-rejected\b"))
        page.evaluate(MARK_PAGE)

        # A lawyer accepts the rejected passage: unblocked, the assignment is still pending.
        in_thread(decide, mfn.pk, "accept", "Agreed with the client: MFN is acceptable here.")
        expect(banner).to_be_hidden(timeout=10_000)
        expect(page.locator("#review-status")).to_have_text("In review")
        item = page.locator(f"#passage-{mfn.index}")
        expect(item.locator(".state")).to_have_text("Confirmed")
        expect(item).to_contain_text(
            "Lawyer decision: accepted by lawyer — Agreed with the client: MFN is acceptable here."
        )
        expect(highlight).to_have_class(re.compile(r"\bhl-confirmed\b"))
        expect(page.locator("[data-count=REJECTED]")).to_have_text("0")
        assert complete.is_hidden()

        # The verifier rejects the other one: the banner comes back.
        in_thread(engine_rejects, assignment.pk)
        expect(banner).to_be_visible(timeout=10_000)
        expect(page.locator(f"#passage-{assignment.index} .state")).to_have_text("Rejected")
        expect(page.locator("[data-count=REJECTED]")).to_have_text("1")

        # A lawyer upholds that rejection: nothing is left to decide, the review completes.
        in_thread(decide, assignment.pk, "reject", "")
        expect(banner).to_be_hidden(timeout=10_000)
        expect(complete).to_be_visible()
        expect(complete).to_contain_text("Review complete")
        expect(page.locator("#review-status")).to_have_text("Complete")
        expect(page.locator(f"#passage-{assignment.index}")).to_contain_text(
            "Lawyer decision: rejected by lawyer"
        )
        assert page.evaluate("window.__sameDocument === true"), "the page reloaded"
