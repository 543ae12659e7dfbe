"""A lawyer clears one contract's 20 items with a filter and one bulk decision, then undoes one
decision and finds the item back in the queue, claimed by them."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import Contract, PassageState
from reviewapp.queue.models import ItemStatus, QueueItem
from tests.e2e.test_queue_flow import ingest_text
from tests.e2e.test_upload_flow import sign_in
from tests.factories import STRICT, active_playbook
from tests.processes import web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def mfn(count: int, tag: str) -> bytes:
    clauses = (
        f"{n}. Pricing {n}. Customer shall receive most favored nation pricing ({tag} {n})."
        for n in range(1, count + 1)
    )
    return ("\n\n".join(clauses) + "\n").encode()


def test_a_lawyer_decides_20_items_of_one_contract_at_once_and_undoes_one(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    active_playbook(organisation=matter.organisation, source=STRICT)
    with ThreadPoolExecutor(1) as pool:  # off Playwright's event loop
        pool.submit(ingest_text, matter, mfn(20, "supply"), "supply.txt").result()
        pool.submit(ingest_text, matter, mfn(5, "lease"), "lease.txt").result()
    supply = Contract.objects.get(original_name="supply.txt")
    assert QueueItem.objects.filter(passage__contract=supply).count() == 20
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        sign_in(page, url, "lawyer", passwords["lawyer"])
        page.goto(f"{url}/queue/")
        page.wait_for_function("() => document.body.dataset.live === 'connected'")
        assert page.locator(".queue-item").count() == 25

        page.select_option("select[name=contract]", str(supply.pk))  # applies at once
        page.wait_for_url(f"**/queue/?*contract={supply.pk}*")
        assert page.locator(".queue-item").count() == 20
        assert (
            "(20)"
            in page.locator(f"select[name=contract] option[value='{supply.pk}']").inner_text()
        )
        page.reload()  # the filter lives in the address
        assert page.locator(".queue-item").count() == 20

        page.check("#select-all")
        assert page.locator("#selected-count").inner_text() == "20 / 20"
        page.fill("[data-role=bulk-note]", "Client accepts MFN across its supply contracts.")
        page.click("[data-action=bulk-accept]")
        summary = page.locator(".confirm-summary").inner_text()
        assert "Decide 20 items: Clause acceptable." in summary
        assert "20 passages change state." in summary
        assert (
            QueueItem.objects.filter(status=ItemStatus.DONE).count() == 0
        )  # not before confirming
        page.click("[data-action=confirm]")
        page.wait_for_selector("text=20 items decided; 20 passages changed state.")
        assert page.locator(".queue-item").count() == 0
        assert page.url.endswith(f"/queue/?contract={supply.pk}")

        decided = QueueItem.objects.filter(passage__contract=supply, status=ItemStatus.DONE)
        assert decided.count() == 20
        assert set(decided.values_list("passage__state", flat=True)) == {PassageState.CONFIRMED}
        undone = decided.order_by("-decided_at", "-pk").first()
        page.click(f"#decided-{undone.pk} [data-action=undo]")
        page.wait_for_selector(f"#item-{undone.pk} [data-action=accept]")  # back, claimed by me
        assert page.locator(".queue-item").count() == 1
        assert (
            "Decision undone"
            in page.locator(f"#item-{undone.pk} [data-part=history]").text_content()
        )
    undone.refresh_from_db()
    undone.passage.refresh_from_db()
    assert (undone.status, undone.claimed_by.username) == (ItemStatus.CLAIMED, "lawyer")
    assert undone.passage.state == PassageState.REJECTED
    assert QueueItem.objects.filter(passage__contract=supply, status=ItemStatus.DONE).count() == 19
