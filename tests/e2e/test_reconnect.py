"""The web server goes away under an open review page; what happened meanwhile shows up on the
page once it has reconnected (live.js reads /api/events/?after=<seq>)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import demo_seed
from reviewapp.contracts.models import PassageState
from reviewapp.embedded import free_port
from reviewapp.realtime.models import Event
from reviewapp.reviews.models import ActorKind
from reviewapp.reviews.services import passage_transition
from tests.e2e.test_blocking import CONTRACT, MARK_PAGE, decide, in_thread, ingest
from tests.e2e.test_upload_flow import sign_in
from tests.factories import STRICT, active_playbook
from tests.processes import web_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def while_disconnected(mfn_id: int, assignment_id: int) -> None:
    passage_transition(
        passage_id=assignment_id,
        to_state=PassageState.NEEDS_HUMAN_REVIEW,
        actor_kind=ActorKind.SYSTEM,
        actor="system",
        reason="LLM_UNAVAILABLE",
    )
    decide(mfn_id, "accept", "Fine for this customer.")


def test_page_shows_events_missed_while_the_server_was_down(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    active_playbook(organisation=matter.organisation, source=STRICT)
    contract = in_thread(ingest, matter, CONTRACT, "mfn.txt")
    mfn = contract.passages.get(state=PassageState.REJECTED)
    assignment = contract.passages.get(state=PassageState.PENDING)
    port = free_port()
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    with web_server(tmp_path / "web.log", port=port) as url:
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/contracts/{contract.pk}/")
        page.wait_for_function("() => document.body?.dataset.live === 'connected'")
        expect(page.locator("#review-banner")).to_be_visible()
        page.evaluate(MARK_PAGE)
    # The server process is gone: the socket is cut from the server's side.
    page.wait_for_function("() => document.body?.dataset.live === 'disconnected'", timeout=10_000)
    before = Event.objects.latest("pk").pk
    in_thread(while_disconnected, mfn.pk, assignment.pk)
    assert Event.objects.filter(pk__gt=before).count() >= 4  # stored, pushed to nobody
    assert page.inner_text(f"#passage-{mfn.index} .state") == "Rejected"  # nothing arrived yet

    with web_server(tmp_path / "web-again.log", port=port):
        page.wait_for_function("() => document.body?.dataset.live === 'connected'", timeout=45_000)
        expect(page.locator(f"#passage-{assignment.index} .state")).to_have_text(
            "Needs human review"
        )
        expect(page.locator(f"#passage-{mfn.index} .state")).to_have_text("Confirmed")
        expect(page.locator(f"#passage-{mfn.index}")).to_contain_text(
            "Lawyer decision: accepted by lawyer"
        )
        expect(page.locator("#review-banner")).to_be_hidden()
        expect(page.locator("#review-status")).to_have_text("In review")
        expect(page.locator("[data-count=NEEDS_HUMAN_REVIEW]")).to_have_text("1")
        highlight = page.locator(f"#document [data-passage='{assignment.index}']")
        expect(highlight).to_have_class(re.compile(r"\bhl-needs_human_review\b"))
        assert page.evaluate("window.__sameDocument === true"), "the page reloaded"


# Every socket the page opens, and the code each closed with.
COUNT_SOCKETS = """
window.__sockets = [];
const NativeWebSocket = window.WebSocket;
window.WebSocket = function (...args) {
  const socket = new NativeWebSocket(...args);
  const record = { closed: null };
  window.__sockets.push(record);
  socket.addEventListener("close", (event) => { record.closed = event.code; });
  return socket;
};
"""


def test_window_past_the_socket_cap_says_so_and_does_not_reconnect_in_a_loop(browser, tmp_path):
    passwords = demo_seed()
    matter = Matter.objects.get(name="Demo matter")
    with web_server(tmp_path / "web.log", REALTIME_MAX_SOCKETS_PER_USER="1") as url:
        context = browser.new_context()
        context.add_init_script(COUNT_SOCKETS)
        first = context.new_page()
        sign_in(first, url, "reviewer", passwords["reviewer"])
        first.goto(f"{url}/matters/{matter.pk}/")
        first.wait_for_function("() => document.body?.dataset.live === 'connected'")

        second = context.new_page()
        second.goto(f"{url}/matters/{matter.pk}/")
        expect(second.locator("#live-notice")).to_contain_text("Too many open windows")
        assert second.evaluate("document.body.dataset.live") == "too-many"
        second.wait_for_timeout(4000)
        assert second.evaluate("window.__sockets") == [{"closed": 4429}]  # no second try

        second.click("button[name=language][value=zh-hans]")
        second.wait_for_selector("html[lang=zh-hans]")
        expect(second.locator("#live-notice")).to_contain_text("打开的窗口过多")

        first.close()  # one window fewer: coming back to the other one connects it
        second.wait_for_timeout(500)
        second.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
        second.wait_for_function("() => document.body?.dataset.live === 'connected'")
        expect(second.locator("#live-notice")).to_have_count(0)
        context.close()
