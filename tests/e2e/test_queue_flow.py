"""Two lawyers watch the queue; a rejected passage arrives live and only one can claim it."""

from __future__ import annotations

import io
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from reviewapp.accounts.models import Matter, Membership, Role
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.services import contract_ingest, contract_upload
from reviewapp.queue.models import QueueItem
from tests.e2e.test_upload_flow import sign_in
from tests.factories import active_playbook
from tests.processes import web_server
from tests.queue.test_queue import STRICT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONTRACT = b"1. Pricing. Customer shall receive most favored nation pricing.\n"


def _ingest(matter: Matter) -> None:
    try:
        contract, _ = contract_upload(
            matter=matter,
            file=io.BytesIO(CONTRACT),
            name="mfn.txt",
            size=len(CONTRACT),
            enqueue=False,
        )
        contract_ingest(contract_id=contract.pk, enqueue=False)
    finally:
        connection.close()


def test_item_arrives_live_and_exactly_one_lawyer_wins_the_claim(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    second = type(matter.memberships.first().user).objects.create_user("lena", password="pw-lena")
    Membership.objects.create(user=second, matter=matter, role=Role.LAWYER)
    active_playbook(organisation=matter.organisation, source=STRICT)
    with web_server(tmp_path / "web.log") as url:
        pages = []
        for username, password in (("lawyer", passwords["lawyer"]), ("lena", "pw-lena")):
            page = browser.new_context().new_page()
            sign_in(page, url, username, password)
            page.goto(f"{url}/queue/")
            page.wait_for_function("document.body.dataset.live === 'connected'")
            pages.append(page)
        # Playwright runs an event loop in this thread; the app's sync code runs in another,
        # while this thread keeps serving the browsers.
        with ThreadPoolExecutor(1) as pool:
            ingestion = pool.submit(_ingest, matter)
            seen = []
            for page in pages:
                page.wait_for_selector("[data-action=claim]", timeout=30_000)
                seen.append(time.time())
            ingestion.result()
        opened = QueueItem.objects.get(passage__contract__matter=matter).created_at.timestamp()
        assert max(seen) - opened < 2, "the item reached the lawyers' pages too late"
        for page in pages:  # both press Claim at (nearly) the same time
            page.evaluate("document.querySelector('[data-action=claim]').form.requestSubmit()")
        for page in pages:
            page.wait_for_load_state()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:  # pages may be reloading after the live update
            shown = [page.locator("[data-action=accept], .claimed").count() for page in pages]
            winners = sum(page.locator("[data-action=accept]").count() for page in pages)
            if all(shown) and winners == 1:
                break
            pages[0].wait_for_timeout(200)
        assert all(shown) and winners == 1, (shown, winners)
