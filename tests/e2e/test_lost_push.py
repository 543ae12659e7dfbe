"""A push lost while the page stays connected (Redis away when a decision was committed): the
event is stored, and the open page reads it on its next catch-up, without a reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import PassageState
from reviewapp.realtime import events
from reviewapp.realtime.models import Event
from tests.e2e.test_blocking import CONTRACT, MARK_PAGE, decide, in_thread, ingest
from tests.e2e.test_upload_flow import sign_in
from tests.factories import STRICT, active_playbook
from tests.processes import web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_decision_whose_push_was_lost_reaches_the_connected_page(browser, tmp_path, monkeypatch):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = in_thread(ingest, matter, CONTRACT, "mfn.txt")
    mfn = contract.passages.get(state=PassageState.REJECTED)
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    with web_server(tmp_path / "web.log", LIVE_CATCH_UP_S="2") as url:
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/contracts/{contract.pk}/")
        page.wait_for_function("() => document.body?.dataset.live === 'connected'")
        page.evaluate(MARK_PAGE)
        # Redis is away for the push: the decision and its events are committed all the same.
        monkeypatch.setattr(events, "_push_all", lambda messages: None)
        before = Event.objects.latest("pk").pk
        in_thread(decide, mfn.pk, "accept", "Fine for this customer.")
        assert Event.objects.filter(pk__gt=before).exists()
        assert page.evaluate("document.body.dataset.live") == "connected"
        expect(page.locator(f"#passage-{mfn.index} .state")).to_have_text(
            "Confirmed", timeout=15_000
        )
        assert page.evaluate("window.__sameDocument === true"), "the page reloaded"
