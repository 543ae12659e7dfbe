"""In the browser: a contract's history shows a lawyer's decision with its passage's words, and
the admin's audit log filters by who did it."""

from __future__ import annotations

import re

import pytest

from reviewapp.accounts.models import Matter
from reviewapp.accounts.services import DEMO_MATTER, demo_seed
from reviewapp.contracts.models import Passage
from tests.e2e.test_upload_flow import sign_in
from tests.factories import STRICT
from tests.processes import web_server
from tests.reviews.test_exports import decide, reviewed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def decided(django_capture_on_commit_callbacks):
    """The demo matter with a contract reviewed offline and one passage decided by the lawyer."""
    passwords = demo_seed()
    matter = Matter.objects.get(name=DEMO_MATTER)
    review = reviewed(matter, django_capture_on_commit_callbacks, playbook=STRICT)
    lawyer = matter.memberships.get(user__username="lawyer").user
    decide(review, lawyer, rule_id="en.strict.mfn", decision="reject", note="No MFN.")
    return review, passwords


def test_history_page_shows_the_decision_with_its_passage_words(browser, decided, tmp_path):
    review, passwords = decided
    passage = Passage.objects.get(contract=review.contract, firings__rule_id="en.strict.mfn")
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page()
        sign_in(page, url, "reviewer", passwords["reviewer"])
        page.goto(f"{url}/contracts/{review.contract_id}/")
        page.click("#history-link")
        page.wait_for_url(f"{url}/contracts/{review.contract_id}/history/")
        decision = page.locator("tr.audit-event", has_text="Decision made")
        decision.wait_for()
        assert decision.locator(".who").inner_text() == "lawyer"
        assert "clause not acceptable" in decision.locator(".what").inner_text()
        target = decision.locator(".target a")
        assert "Customer shall receive most favored nation pricing." in target.inner_text()
        target.click()
        # The page marks the passage in its address (#passage-N) as soon as it has selected it,
        # which may be before this wait begins.
        page.wait_for_url(
            re.compile(
                rf"{re.escape(url)}/contracts/{review.contract_id}/\?passage={passage.index}"
                rf"(#passage-{passage.index})?$"
            )
        )


def test_admin_filters_the_audit_log_by_actor_and_action(browser, decided, tmp_path):
    review, passwords = decided
    with web_server(tmp_path / "web.log") as url:
        page = browser.new_page()
        sign_in(page, url, "admin", passwords["admin"])
        page.click("nav >> text=Audit log")
        page.wait_for_selector("#audit-events")
        everyone = page.locator("tr.audit-event").count()
        whos = set(page.locator("tr.audit-event .who").all_inner_texts())
        assert {"lawyer", "Trigger rules"} <= whos
        page.fill("#audit-filters input[name=actor]", "lawyer")
        page.click("#audit-filters button[type=submit]")
        page.wait_for_url("**/audit/?*actor=lawyer*")
        by_lawyer = page.locator("tr.audit-event .who").all_inner_texts()
        assert by_lawyer and set(by_lawyer) == {"lawyer"} and len(by_lawyer) < everyone
        page.select_option("#audit-filters select[name=action]", "queue.decided")
        page.click("#audit-filters button[type=submit]")
        page.wait_for_url("**/audit/?*action=queue.decided*")
        rows = page.locator("tr.audit-event")
        assert rows.count() == 1
        assert "Customer shall receive most favored nation" in rows.first.inner_text()
        assert page.input_value("#audit-filters input[name=actor]") == "lawyer"
